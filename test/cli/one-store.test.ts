import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { makeModulesCommand } from "../../src/cli/commands/modules.js";
import { editPayload, runHookCli } from "../hooks/hook-harness.js";
import { repositoryWithWorktree } from "../support/git-repository.js";
import { useTempDir } from "../support/temp-dir.js";
import { runCommand } from "./cli-harness.js";

/**
 * One store per repository: sessions in two worktrees, or started in a subfolder, resolve the same
 * store and subject, so an edit claimed in one is seen by the other.
 */
describe("one store per repository", () => {
  const tempDir = useTempDir("shared-ctx-one-store-");

  it("a claim made in the main checkout refuses the same module's edit in a worktree", async () => {
    const { main, worktree } = repositoryWithWorktree(tempDir());
    const claimed = await runHookCli(["hook", "post-tool-use"], {
      stdin: JSON.stringify(editPayload("PostToolUse", "session-a", main, "src/billing/a.ts")),
      env: { CLAUDE_PROJECT_DIR: main },
    });
    expect(claimed.exitCode).toBe(0);
    const refused = await runHookCli(["hook", "pre-tool-use"], {
      stdin: JSON.stringify(editPayload("PreToolUse", "session-b", worktree, "src/billing/a.ts")),
      env: { CLAUDE_PROJECT_DIR: worktree },
    });
    expect(refused.output?.hookSpecificOutput?.permissionDecision).toBe("deny");
    expect(refused.output?.hookSpecificOutput?.permissionDecisionReason).toContain(
      "Claimed: session session-a is working on billing",
    );
    expect(existsSync(join(main, ".shared-ctx", "store.db"))).toBe(true);
    expect(existsSync(join(worktree, ".shared-ctx"))).toBe(false);
  });

  it("a session started in a subfolder of the worktree uses the same store (no second one in src/)", async () => {
    const { main, worktree } = repositoryWithWorktree(tempDir());
    await runHookCli(["hook", "post-tool-use"], {
      stdin: JSON.stringify(editPayload("PostToolUse", "session-a", main, "src/billing/a.ts")),
      env: { CLAUDE_PROJECT_DIR: main },
    });
    const sub = join(worktree, "src");
    const refused = await runHookCli(["check", "--agent", "session-c", "--path", "billing/a.ts"], {
      env: { CLAUDE_PROJECT_DIR: sub },
      cwd: sub,
    });
    expect(refused.exitCode).toBe(3);
    expect(refused.output).toMatchObject({ decision: "deny", subject: "acme" });
    expect(existsSync(join(sub, ".shared-ctx"))).toBe(false);
  });

  it("modules prints the same store and subject from the main checkout, a worktree and a subfolder", async () => {
    const { main, worktree } = repositoryWithWorktree(tempDir());
    const documents = [];
    for (const cwd of [main, worktree, join(worktree, "src", "billing")]) {
      const run = await runCommand(makeModulesCommand, ["modules", "--json"], { cwd, env: {} });
      expect(run.exitCode).toBe(0);
      documents.push(JSON.parse(run.stdout));
    }
    for (const document of documents) {
      expect(document).toMatchObject({
        sharedRoot: main,
        subject: "acme",
        store: { kind: "embedded", location: join(main, ".shared-ctx", "store.db") },
        modules: [{ name: "billing", globs: ["src/billing/**"] }],
      });
    }
    expect(documents.map((document) => document.root)).toEqual([main, worktree, worktree]);
    const plain = await runCommand(makeModulesCommand, ["modules"], { cwd: worktree, env: {} });
    expect(plain.stdout).toContain(`Root:    ${worktree} (a worktree of ${main})\n`);
    expect(plain.stdout).toContain(
      `Store:   ${join(main, ".shared-ctx", "store.db")} (embedded)\n`,
    );
  });
});

describe("storeSelection (watch, timeline, runs, serve)", () => {
  const tempDir = useTempDir("shared-ctx-one-store-selection-");

  it("opens the repository's store from a worktree's subfolder; a typed --db stays relative to the cwd", async () => {
    const { storeSelection } = await import("../../src/cli/command-helpers.js");
    const { describeStoreLocation } = await import("../../src/ui/data/open-store.js");
    const { main, worktree } = repositoryWithWorktree(tempDir());
    const cwd = join(worktree, "src");
    const deps = { cwd, env: {} } as unknown as Parameters<typeof storeSelection>[1];
    expect(describeStoreLocation(storeSelection({}, deps)).location).toBe(
      join(main, ".shared-ctx", "store.db"),
    );
    expect(describeStoreLocation(storeSelection({ db: "mine.db" }, deps)).location).toBe(
      join(cwd, "mine.db"),
    );
  });
});
