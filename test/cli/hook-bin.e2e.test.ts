import { spawn } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import { editPayload, makeRepository, recordDecision } from "../hooks/hook-harness.js";
import { requireBuiltCli } from "../support/built-bin.js";
import { waitForExit } from "../support/run-child.js";
import { useTempDir } from "../support/temp-dir.js";

const repoRoot = fileURLToPath(new URL("../..", import.meta.url));
const bin = join(repoRoot, "bin", "shared-ctx.js");

/** Runs the BUILT bin as Claude Code runs a command hook: JSON on stdin, JSON back on stdout. */
async function hookProcess(args: readonly string[], stdin: string, cwd: string) {
  const { SHARED_CTX_AGENT: _agent, SHARED_CTX_DB: _db, ...env } = process.env;
  const child = spawn(process.execPath, [bin, ...args], {
    cwd,
    env: { ...env, CLAUDE_PROJECT_DIR: cwd },
    stdio: ["pipe", "pipe", "pipe"],
  });
  const exited = waitForExit(child);
  child.stdin?.end(stdin);
  return exited;
}

describe("shared-ctx hook, the built bin spawned with JSON on stdin", () => {
  const tempDir = useTempDir("shared-ctx-hook-bin-");

  beforeAll(requireBuiltCli);

  it("denies session B's Edit of a retired module, and allows it for a module nobody decided on", async () => {
    const root = makeRepository(tempDir(), [
      "src/legacy-billing/invoice.ts",
      "src/orders/order.ts",
    ]);
    await recordDecision(join(root, ".shared-ctx", "store.db"), {
      author: "session-a",
      content: "Retire legacy-billing: invoices move to billing-v2",
      target: "legacy-billing",
    });
    // The default store (<root>/.shared-ctx/store.db) and the root from $CLAUDE_PROJECT_DIR.
    const denied = await hookProcess(
      ["hook", "pre-tool-use", "--subject", "acme"],
      JSON.stringify(editPayload("PreToolUse", "session-b", root, "src/legacy-billing/invoice.ts")),
      root,
    );
    expect(denied.stderr).toBe("");
    expect(denied.code).toBe(0);
    const output = JSON.parse(denied.stdout);
    expect(output.hookSpecificOutput).toMatchObject({
      hookEventName: "PreToolUse",
      permissionDecision: "deny",
    });
    expect(output.hookSpecificOutput.permissionDecisionReason).toContain(
      'session-a decided "Retire legacy-billing: invoices move to billing-v2"',
    );
    const allowed = await hookProcess(
      ["hook", "pre-tool-use", "--subject", "acme"],
      JSON.stringify(editPayload("PreToolUse", "session-b", root, "src/orders/order.ts")),
      root,
    );
    expect(allowed).toMatchObject({ code: 0, stdout: "", stderr: "" });
  }, 30_000);

  // The fast path (dist/cli/hook-main.js) answers the hooks; anything else it leaves to the full CLI.
  describe("the fast path hands help and usage errors to the full CLI", () => {
    it("prints commander's help for `hook pre-tool-use --help`", async () => {
      const run = await hookProcess(["hook", "pre-tool-use", "--help"], "", tempDir());
      expect(run.code).toBe(0);
      expect(run.stdout).toContain("Usage: shared-ctx hook pre-tool-use [options]");
      expect(run.stdout).toContain("--database-url <url>");
    });

    it("reports an unknown option as commander does, exit 2", async () => {
      const run = await hookProcess(["hook", "pre-tool-use", "--bogus", "x"], "", tempDir());
      expect(run.code).toBe(2);
      expect(run.stderr).toContain("--bogus");
    });

    it("reports check without --path as commander does, exit 2", async () => {
      const run = await hookProcess(["check", "--agent", "a"], "", tempDir());
      expect(run.code).toBe(2);
      expect(run.stderr).toContain("--path");
    });

    it("answers `check` on the fast path with the same JSON contract", async () => {
      const root = makeRepository(tempDir(), ["src/orders/order.ts"]);
      const run = await hookProcess(
        ["check", "--agent", "a", "--path", join(root, "src", "orders", "order.ts")],
        "",
        root,
      );
      expect(run).toMatchObject({ code: 0, stderr: "" });
      expect(JSON.parse(run.stdout)).toMatchObject({
        decision: "allow",
        agent: "a",
        files: [{ path: "src/orders/order.ts", module: "orders", decision: "allow" }],
      });
    });

    it("names a bad hook input as a usage error, exit 2", async () => {
      const run = await hookProcess(["hook", "pre-tool-use"], "{not json", tempDir());
      expect(run.code).toBe(2);
      expect(run.stderr).toContain("not JSON");
    });
  });
});
