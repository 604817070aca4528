import { basename, dirname, isAbsolute, join, relative, resolve } from "node:path";
import { configFileName } from "./project-config.js";

/**
 * Where a project is, seen from any folder inside it, in any worktree: one store per repository.
 *
 * Parallel coding sessions usually work in separate `git worktree`s, or start in a subfolder. Each
 * must find the same store and the same subject, so the store belongs to the repository that every
 * worktree shares (the parent of `git rev-parse --git-common-dir`), while module globs stay relative
 * to the checkout the session edits. Git is read from its files (`.git`, `gitdir:`, `commondir`),
 * never run: the edit hook's start-up is every edit's latency.
 */

/** The files the root search reads; tests pass an in-memory one. */
export interface RootFileSystem {
  /** A file's text, or undefined when there is no such file (or it is a folder). */
  readFile(path: string): string | undefined;
  exists(path: string): boolean;
}

/** Where a project is. */
export interface ProjectRoots {
  /**
   * The checkout folder the session works in: module globs and edited paths are relative to it
   * (the nearest folder holding shared-ctx.config.json, else the git checkout's top).
   */
  readonly root: string;
  /**
   * The same project in the repository every worktree shares: the embedded store lives under it
   * (`<storeRoot>/.shared-ctx/store.db`) and the default subject is its name. Equal to `root`
   * outside a linked worktree.
   */
  readonly storeRoot: string;
  /** How `root` was found: the configuration file, git, or neither (the start folder itself). */
  readonly foundBy: "config" | "git" | "none";
}

/**
 * The project around `start`: walking up to the file system's root, the nearest folder holding
 * shared-ctx.config.json wins; else the nearest git checkout (a `.git` folder or file); else `start`
 * itself. A config file wins over git wherever it is above, so a nested checkout (a vendored
 * submodule) inside a configured project stays in that project.
 */
export function findProjectRoots(start: string, fs: RootFileSystem): ProjectRoots {
  const from = resolve(start);
  let config: string | undefined;
  let git: string | undefined;
  for (let dir = from; ; ) {
    if (config === undefined && fs.exists(join(dir, configFileName))) config = dir;
    if (git === undefined && fs.exists(join(dir, ".git"))) git = dir;
    if (config !== undefined) break;
    const parent = dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  const root = config ?? git ?? from;
  return {
    root,
    storeRoot: sharedRootOf(root, fs),
    foundBy: config !== undefined ? "config" : git !== undefined ? "git" : "none",
  };
}

/**
 * `root` as it lies in the repository all worktrees share: in a linked worktree (whose `.git` is a
 * file naming a `gitdir` with a `commondir`), the same relative folder under the main checkout
 * (the parent of the common git folder; the common folder itself for a bare repository); else
 * `root` unchanged (a plain checkout, a submodule, no git at all).
 */
export function sharedRootOf(root: string, fs: RootFileSystem): string {
  const top = checkoutTopOf(root, fs);
  if (top === undefined) return root;
  const dotGit = fs.readFile(join(top, ".git"));
  // A folder (readFile gives undefined): this is the main checkout already.
  if (dotGit === undefined) return root;
  const gitdirLine = /^gitdir:\s*(.+?)\s*$/m.exec(dotGit)?.[1];
  if (gitdirLine === undefined) return root;
  const gitDir = resolve(top, gitdirLine);
  const commonDirText = fs.readFile(join(gitDir, "commondir"))?.trim();
  // No commondir: a submodule's own repository, not a worktree of another checkout.
  if (!commonDirText) return root;
  const commonDir = resolve(gitDir, commonDirText);
  const main = basename(commonDir) === ".git" ? dirname(commonDir) : commonDir;
  const inside = relative(top, root);
  return inside === "" || isAbsolute(inside) ? main : join(main, inside);
}

/** The nearest folder at or above `dir` holding `.git`, or undefined. */
function checkoutTopOf(dir: string, fs: RootFileSystem): string | undefined {
  for (let current = dir; ; ) {
    if (fs.exists(join(current, ".git"))) return current;
    const parent = dirname(current);
    if (parent === current) return undefined;
    current = parent;
  }
}
