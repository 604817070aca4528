import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { spawnTsChild, waitForExit } from "../../support/run-child.js";
import { useTempDir } from "../../support/temp-dir.js";
import { runWholeCli } from "../cli-harness.js";

const runCliScript = fileURLToPath(
  new URL("../../integrations/fixtures/run-cli.ts", import.meta.url),
);

describe("shared-ctx mcp", () => {
  const tempDir = useTempDir("shared-ctx-mcp-cli-");

  it("refuses to start without --subject (usage error, exit 2)", async () => {
    const { exitCode, stdout, stderr } = await runWholeCli(["mcp"]);
    expect(exitCode).toBe(2);
    expect(stderr).toContain("--subject");
    expect(stdout).toBe("");
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
