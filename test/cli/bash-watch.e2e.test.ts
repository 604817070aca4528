import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type Backend, backends, decide } from "../hooks/hook-backends.js";
import { runHookCli, toolPayload } from "../hooks/hook-harness.js";
import { useTempDir } from "../support/temp-dir.js";

/**
 * What a Bash command really wrote is known after it ran (issue 37): real git repositories in
 * temp folders, real shell commands run between the two hooks, as Claude Code runs them.
 */

const binDir = join(process.cwd(), "node_modules", ".bin");

function git(root: string, ...args: string[]): string {
  return execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@example.com", ...args], {
    cwd: root,
    encoding: "utf8",
  });
}

/** A committed repository with two modules, the store's folder ignored. */
function makeGitRepository(root: string): string {
  for (const file of ["src/legacy-billing/index.ts", "src/orders/order.ts"]) {
    mkdirSync(join(root, file, ".."), { recursive: true });
    writeFileSync(join(root, file), "export const rate = 1;\n");
  }
  writeFileSync(join(root, ".gitignore"), ".shared-ctx/\n");
  git(root, "init", "-q");
  git(root, "add", "-A");
  git(root, "commit", "-qm", "start");
  return root;
}

describe.each(Object.keys(backends) as Array<keyof typeof backends>)("on the %s store", (kind) => {
  const tempDir = useTempDir("shared-ctx-bash-");
  const open: Backend[] = [];
  afterEach(async () => {
    for (const backend of open.splice(0)) await backend.close();
  });

  async function setUp() {
    const root = makeGitRepository(tempDir());
    const backend = await backends[kind](root);
    open.push(backend);
    await decide(backend.store, {
      author: "session-a",
      content: "Retire legacy-billing: invoices move to billing-v2",
      target: "legacy-billing",
    });
    const env = { TMPDIR: tempDir() };
    let calls = 0;
    /** The two hooks around `command`, run for real in between (unless the first refuses it). */
    const bash = async (command: string, session = "session-b") => {
      calls += 1;
      const payload = (event: "PreToolUse" | "PostToolUse") => ({
        ...toolPayload(event, session, root, "Bash", { command, description: "x" }),
        tool_use_id: `toolu_${calls}`,
      });
      const flags = ["--root", root, "--subject", "acme", ...backend.flags];
      const pre = await runHookCli(["hook", "pre-tool-use", ...flags], {
        stdin: JSON.stringify(payload("PreToolUse")),
        env,
      });
      if (pre.output?.hookSpecificOutput?.permissionDecision) return { pre, post: undefined };
      execFileSync("/bin/sh", ["-c", command], {
        cwd: root,
        env: { ...process.env, PATH: `${binDir}:${process.env.PATH}` },
        stdio: "ignore",
      });
      const post = await runHookCli(["hook", "post-tool-use", ...flags], {
        stdin: JSON.stringify(payload("PostToolUse")),
        env,
      });
      return { pre, post };
    };
    return { root, backend, bash, env };
  }

  it.each([
    ["cd src/legacy-billing && echo x > a.ts", "src/legacy-billing/a.ts"],
    [
      `python3 -c "open('src/legacy-billing/index.ts','w').write('export const rate = 3;')"`,
      "src/legacy-billing/index.ts",
    ],
    ["biome format --write src/legacy-billing", "src/legacy-billing/index.ts"],
  ])(
    "tells the model and a person what `%s` wrote into a retired module",
    async (command, file) => {
      const { root, backend, bash } = await setUp();
      // The formatter has something to rewrite: a line it would format.
      writeFileSync(join(root, "src/legacy-billing/index.ts"), "export const rate   =  1\n");
      const { pre, post } = await bash(command);
      // The parser does not see these writes: the command runs.
      expect(pre.output).toBeUndefined();
      expect(post?.exitCode).toBe(0);
      expect(post?.output.decision).toBe("block");
      const reason: string = post?.output.reason;
      expect(reason).toContain(`your Bash command ran and changed ${file}`);
      expect(reason).toContain("Retired: session-a decided");
      expect(reason).toContain("A person has been asked to settle modules/legacy-billing");
      // A person sees it: the module's register is in open dispute, and edits wait for them.
      const disputes = await backend.store.searchMemories("acme", {
        kind: "episode_summary",
        q: "modules/legacy-billing",
        limit: 20,
      });
      expect(
        disputes
          .filter((memory) => memory.metadata.episodeType === "escalation")
          .map((m) => m.content),
      ).toEqual([expect.stringContaining('session-b: "written-by:session-b"')]);
    },
  );

  it("sees `git checkout --` restore a retired module's files, and records no write elsewhere", async () => {
    const { root, bash } = await setUp();
    writeFileSync(join(root, "src/legacy-billing/index.ts"), "export const rate = 2;\n");
    const { post } = await bash("git checkout -- src/legacy-billing");
    expect(post?.output.decision).toBe("block");
    expect(post?.output.reason).toContain("changed src/legacy-billing/index.ts");
    // `git add` writes the index, not the tree: nothing to say.
    writeFileSync(join(root, "src/orders/order.ts"), "export const rate = 2;\n");
    const add = await bash("git add -A");
    expect(add.post?.output).toBeUndefined();
  });

  it("records a command's writes in a free module as the session's claim, which holds off another session", async () => {
    const { root, bash } = await setUp();
    const { post } = await bash("cd src/orders && printf 'x' > new.ts");
    expect(post?.output).toBeUndefined();
    const other = await bash("cd src && touch orders/other.ts", "session-c");
    expect(other.post?.output.decision).toBe("block");
    expect(other.post?.output.reason).toContain("Claimed: session session-b is working on orders");
    expect(other.post?.output.hookSpecificOutput.additionalContext).toContain(
      "session session-b edited module orders too (session-b edited src/orders/new.ts (Bash))",
    );
    expect(root).toBeTruthy();
  });

  it("still refuses up front what the parser catches (`sed -i`), so the command never runs", async () => {
    const { bash } = await setUp();
    const { pre, post } = await bash("sed -i 's/1/3/' src/legacy-billing/index.ts");
    expect(pre.output.hookSpecificOutput.permissionDecision).toBe("deny");
    expect(post).toBeUndefined();
  });
});
