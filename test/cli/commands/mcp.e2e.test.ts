import { basename, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { makeRepository } from "../../hooks/hook-harness.js";
import { spawnTsChild, waitForExit } from "../../support/run-child.js";
import { useTempDir } from "../../support/temp-dir.js";

const runCliScript = fileURLToPath(
  new URL("../../integrations/fixtures/run-cli.ts", import.meta.url),
);

describe("shared-ctx mcp", () => {
  const tempDir = useTempDir("shared-ctx-mcp-cli-");

  it("without --subject or --agent, takes the repository's subject and the session's name, as the hooks do", async () => {
    const root = makeRepository(tempDir(), ["src/billing/a.ts"]);
    // Claude Code sets CLAUDE_PROJECT_DIR (here: a session started in a subfolder) and
    // CLAUDE_CODE_SESSION_ID in a stdio server's environment.
    const child = spawnTsChild(runCliScript, ["mcp"], {
      CLAUDE_PROJECT_DIR: join(root, "src", "billing"),
      CLAUDE_CODE_SESSION_ID: "session-1",
      SHARED_CTX_AGENT: "",
      SHARED_CTX_DB: "",
    });
    child.stdin?.end();
    const { code, stdout, stderr } = await waitForExit(child);
    expect(stderr).toContain(
      `subject "${basename(root)}", agent "session-1", repository ${root}, listening on stdio`,
    );
    expect(stdout).toBe("");
    expect(code).toBe(0);
  });

  it("writes nothing but protocol to stdout, and exits cleanly when the client closes stdin", async () => {
    const dbPath = join(tempDir(), "store.db");
    const child = spawnTsChild(runCliScript, [
      "mcp",
      "--subject",
      "repo",
      "--agent",
      "alice",
      "--db",
      dbPath,
    ]);
    child.stdin?.end();
    const { code, stdout, stderr } = await waitForExit(child);

    expect(stderr).toContain('subject "repo", agent "alice"');
    expect(stdout).toBe("");
    expect(code).toBe(0);
  });
});
