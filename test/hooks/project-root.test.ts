import { mkdirSync, realpathSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { nodeProjectFileSystem } from "../../src/hooks/load-project.js";
import { findProjectRoots, sharedRootOf } from "../../src/hooks/project-root.js";
import { git, repositoryWithWorktree } from "../support/git-repository.js";
import { useTempDir } from "../support/temp-dir.js";

describe("findProjectRoots", () => {
  const tempDir = useTempDir("shared-ctx-root-");
  const find = (start: string) => findProjectRoots(start, nodeProjectFileSystem);

  it("finds the main checkout's root from a worktree, as git rev-parse --git-common-dir says", () => {
    const { main, worktree } = repositoryWithWorktree(tempDir());
    const common = resolve(worktree, git(worktree, "rev-parse", "--git-common-dir"));
    expect(dirname(common)).toBe(main);
    expect(find(join(worktree, "src", "billing"))).toEqual({
      root: worktree,
      storeRoot: main,
      foundBy: "git",
    });
    expect(find(join(main, "src"))).toEqual({ root: main, storeRoot: main, foundBy: "git" });
  });

  it("a config file wins over git, and maps to the same folder in the main checkout", () => {
    const { main, worktree } = repositoryWithWorktree(tempDir());
    for (const checkout of [main, worktree]) {
      mkdirSync(join(checkout, "packages", "app", "src"), { recursive: true });
      writeFileSync(join(checkout, "packages", "app", "shared-ctx.config.json"), "{}");
    }
    expect(find(join(worktree, "packages", "app", "src"))).toEqual({
      root: join(worktree, "packages", "app"),
      storeRoot: join(main, "packages", "app"),
      foundBy: "config",
    });
    // A nested checkout (a vendored repository) inside a configured project stays in it.
    mkdirSync(join(main, "packages", "app", "vendor", "lib", ".git"), { recursive: true });
    expect(find(join(main, "packages", "app", "vendor", "lib")).root).toBe(
      join(main, "packages", "app"),
    );
  });

  it("a submodule-like .git file without commondir is its own repository; no git at all is the start", () => {
    const base = realpathSync(tempDir());
    mkdirSync(join(base, "outer", ".git", "modules", "sub"), { recursive: true });
    mkdirSync(join(base, "outer", "sub"), { recursive: true });
    writeFileSync(join(base, "outer", "sub", ".git"), "gitdir: ../.git/modules/sub\n");
    expect(sharedRootOf(join(base, "outer", "sub"), nodeProjectFileSystem)).toBe(
      join(base, "outer", "sub"),
    );
    mkdirSync(join(base, "plain", "deep"), { recursive: true });
    expect(find(join(base, "plain", "deep"))).toEqual({
      root: join(base, "plain", "deep"),
      storeRoot: join(base, "plain", "deep"),
      foundBy: "none",
    });
  });
});
