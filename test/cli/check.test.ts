import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { editPayload, makeRepository, recordDecision, runHookCli } from "../hooks/hook-harness.js";
import { useTempDir } from "../support/temp-dir.js";

describe("shared-ctx check --agent A --path FILE (for any harness)", () => {
  const tempDir = useTempDir("shared-ctx-check-");

  async function retired(config?: unknown): Promise<{ root: string; db: string }> {
    const root = makeRepository(
      tempDir(),
      ["src/legacy-billing/a.ts", "src/orders/b.ts", "README.md"],
      config,
    );
    const db = join(root, ".shared-ctx", "store.db");
    await recordDecision(db, {
      author: "alice",
      content: "Retire legacy-billing",
      target: "legacy-billing",
    });
    return { root, db };
  }

  /** `check` as a harness calls it: the files by their absolute paths. */
  const checkAbsolute = (root: string, db: string, agent: string, ...paths: string[]) =>
    runHookCli([
      "check",
      "--agent",
      agent,
      "--root",
      root,
      "--db",
      db,
      "--subject",
      "acme",
      ...paths.flatMap((path) => ["--path", path]),
    ]);

  /** `check` of files inside the project, named from its root. */
  const check = (root: string, db: string, agent: string, ...paths: string[]) =>
    checkAbsolute(root, db, agent, ...paths.map((path) => join(root, path)));

  it("exits 0 with decision allow for files it may edit, and names each file's module", async () => {
    const { root, db } = await retired();
    const run = await check(root, db, "bob", "src/orders/b.ts", "README.md");
    expect(run.exitCode).toBe(0);
    expect(run.output).toEqual({
      decision: "allow",
      subject: "acme",
      agent: "bob",
      files: [
        { path: "src/orders/b.ts", module: "orders", decision: "allow", conflicts: [], unread: [] },
        { path: "README.md", module: null, decision: "allow", conflicts: [], unread: [] },
      ],
    });
  });

  it("lists a file outside the project with its absolute path and no module", async () => {
    const { root, db } = await retired();
    const run = await checkAbsolute(root, db, "bob", "/etc/hosts");
    expect(run.exitCode).toBe(0);
    expect(run.output.files).toEqual([
      { path: "/etc/hosts", module: null, decision: "allow", conflicts: [], unread: [] },
    ]);
  });

  it("exits 3 with decision deny, the reason and the conflict, for a retired module", async () => {
    const { root, db } = await retired();
    const run = await check(root, db, "bob", "src/legacy-billing/a.ts");
    expect(run.exitCode).toBe(3);
    expect(run.output.decision).toBe("deny");
    expect(run.output.reason).toContain('alice decided "Retire legacy-billing"');
    expect(run.output.files[0]).toMatchObject({
      path: "src/legacy-billing/a.ts",
      module: "legacy-billing",
      decision: "deny",
      conflicts: [
        {
          type: "retired",
          decision: { author: "alice", content: "Retire legacy-billing", target: "legacy-billing" },
        },
      ],
    });
    expect(run.stderr).toContain(
      "shared-ctx: check: refused: src/legacy-billing/a.ts (legacy-billing: retired)",
    );
  });

  it("exits 4 with decision ask when the project asks instead of refusing", async () => {
    const { root, db } = await retired({ hooks: { onConflict: "ask" } });
    const run = await check(root, db, "bob", "src/legacy-billing/a.ts");
    expect(run.exitCode).toBe(4);
    expect(run.output.decision).toBe("ask");
  });

  it("and the Claude Code hook asks the person too, with the same reason", async () => {
    const { root, db } = await retired({ hooks: { onConflict: "ask" } });
    const run = await runHookCli(
      ["hook", "pre-tool-use", "--root", root, "--db", db, "--subject", "acme"],
      {
        stdin: JSON.stringify(editPayload("PreToolUse", "bob", root, "src/legacy-billing/a.ts")),
      },
    );
    expect(run.output.hookSpecificOutput.permissionDecision).toBe("ask");
    expect(run.output.hookSpecificOutput.permissionDecisionReason).toContain("alice decided");
  });

  it("refuses a broken configuration with exit 2, naming the file and field", async () => {
    const root = makeRepository(tempDir(), ["src/a/b.ts"], { hooks: { onConflict: "maybe" } });
    const run = await runHookCli([
      "check",
      "--agent",
      "x",
      "--root",
      root,
      "--path",
      join(root, "src/a/b.ts"),
    ]);
    expect(run.exitCode).toBe(2);
    expect(run.stderr).toContain(
      'shared-ctx.config.json: hooks.onConflict: expected "deny" or "ask"',
    );
  });
});

describe("shared-ctx hook: bad input", () => {
  const tempDir = useTempDir("shared-ctx-hook-input-");

  it.each([
    ["not json", "hook input: not JSON"],
    ["[1]", "hook input: expected a JSON object"],
    ['{"session_id":"s","tool_input":"x"}', "hook input field tool_input: expected a JSON object"],
    ['{"session_id":5}', "hook input field session_id: expected a string"],
  ])("%s → exit 2 and %s", async (stdin, message) => {
    const root = makeRepository(tempDir(), []);
    const run = await runHookCli(["hook", "pre-tool-use", "--root", root], { stdin });
    expect(run.exitCode).toBe(2);
    expect(run.stderr).toContain(message);
  });

  it("needs an agent id when the input has no session", async () => {
    const root = makeRepository(tempDir(), []);
    const run = await runHookCli(["hook", "pre-tool-use", "--root", root], { stdin: "{}" });
    expect(run.exitCode).toBe(2);
    expect(run.stderr).toContain("pass --agent NAME or set SHARED_CTX_AGENT");
  });
});
