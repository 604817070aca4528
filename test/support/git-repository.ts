import { execFileSync } from "node:child_process";
import { mkdirSync, realpathSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";

/** Runs git quietly in `cwd` (no user config, a fixed identity). */
export function git(cwd: string, ...args: string[]): string {
  return execFileSync("git", args, {
    cwd,
    encoding: "utf8",
    env: {
      ...process.env,
      GIT_CONFIG_GLOBAL: "/dev/null",
      GIT_CONFIG_NOSYSTEM: "1",
      GIT_AUTHOR_NAME: "t",
      GIT_AUTHOR_EMAIL: "t@example.com",
      GIT_COMMITTER_NAME: "t",
      GIT_COMMITTER_EMAIL: "t@example.com",
    },
  }).trim();
}

/**
 * A real repository `acme` with one commit (src/billing/a.ts, and shared-ctx.config.json when
 * `config` is given) and a linked worktree `acme-wt` beside it, as `git worktree add` makes it.
 */
export function repositoryWithWorktree(
  base: string,
  config?: unknown,
): { main: string; worktree: string } {
  const main = join(realpathSync(base), "acme");
  mkdirSync(join(main, "src", "billing"), { recursive: true });
  writeFileSync(join(main, "src", "billing", "a.ts"), "export {}\n");
  if (config !== undefined) {
    writeFileSync(join(main, "shared-ctx.config.json"), JSON.stringify(config));
  }
  git(main, "init", "-q", "-b", "main");
  git(main, "add", ".");
  git(main, "commit", "-q", "-m", "start");
  const worktree = join(dirname(main), "acme-wt");
  git(main, "worktree", "add", "-q", "-b", "side", worktree);
  return { main, worktree };
}
