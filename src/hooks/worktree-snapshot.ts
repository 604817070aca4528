import { execFileSync } from "node:child_process";
import { existsSync, lstatSync } from "node:fs";
import { dirname, join } from "node:path";

/**
 * What a Bash command really wrote. The `PreToolUse` parser (edit-targets.ts) catches the obvious
 * forms; `cd x && echo > a.ts`, `git checkout -- x`, `python3 -c "open(…,'w')"` or a formatter
 * write files no parser can see. So before each Bash call the hook takes a cheap snapshot of the
 * working tree, and after it compares: the files that changed are the command's writes.
 *
 * The snapshot is `git status --porcelain -z --untracked-files=all` (tracked files that differ
 * from the index, untracked files; ignored files are not looked at) with each listed file's size,
 * mtime and ctime. A clean tracked file is not listed: if the command changes it, it is listed
 * after. A file listed before is compared by its stamp, whether it is listed after or not (a
 * `git checkout` that restores it rewrites it; a `git add` or `git commit` does not touch it).
 * Cost: one `git status` per call (it reads the index and stats the tree, as `git status` does)
 * and one `lstat` per listed file, at most {@link maxEntries} of them.
 */

/** At most this many changed or untracked files are stamped (the rest is said to be cut). */
export const maxEntries = 20_000;
/** `git status` gets this long before the snapshot is given up. */
const gitTimeoutMs = 3000;

/** A file's size and times, or null when it does not exist. */
export type FileStamp = {
  readonly size: number;
  readonly mtimeMs: number;
  readonly ctimeMs: number;
} | null;

/** One listed file: its two-letter porcelain status (`" M"`, `"??"`, `"D "`) and its stamp. */
export interface SnapshotEntry {
  readonly status: string;
  readonly stamp: FileStamp;
}

/** The working tree's listed files at one moment. */
export interface WorktreeSnapshot {
  /** The work tree's top folder (absolute): entries are relative to it, with `/`. */
  readonly top: string;
  readonly entries: Readonly<Record<string, SnapshotEntry>>;
  /** More than {@link maxEntries} files were listed: the snapshot holds the first ones. */
  readonly truncated: boolean;
}

/** The git work tree holding `path`: the nearest folder at or above it with `.git`. */
export function workTreeTopOf(path: string): string | undefined {
  let dir = path;
  for (;;) {
    if (existsSync(join(dir, ".git"))) return dir;
    const parent = dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

/** A file's stamp now. */
export function stampOf(path: string): FileStamp {
  const stats = lstatSync(path, { throwIfNoEntry: false });
  return stats ? { size: stats.size, mtimeMs: stats.mtimeMs, ctimeMs: stats.ctimeMs } : null;
}

/**
 * `git status --porcelain=v1 -z` records: `XY path`, and for a rename or copy `XY new` followed
 * by the old path as a record of its own. Pure.
 */
export function parsePorcelain(output: string): Array<{ status: string; path: string }> {
  const records = output.split("\u0000");
  const entries: Array<{ status: string; path: string }> = [];
  for (let index = 0; index < records.length; index += 1) {
    const record = records[index] ?? "";
    if (record.length < 4) continue;
    const status = record.slice(0, 2);
    entries.push({ status, path: record.slice(3) });
    if (/[RC]/.test(status)) {
      index += 1;
      const from = records[index];
      if (from) entries.push({ status, path: from });
    }
  }
  return entries;
}

/**
 * The working tree of `top` now, with the stamps of `alsoStamp` too (the files listed in an
 * earlier snapshot, which may be clean now). Undefined when git cannot tell (not a work tree,
 * no git, too slow).
 */
export function takeSnapshot(
  top: string,
  alsoStamp: Iterable<string> = [],
): WorktreeSnapshot | undefined {
  let output: string;
  try {
    output = execFileSync(
      "git",
      ["--no-optional-locks", "status", "--porcelain=v1", "-z", "--untracked-files=all"],
      {
        cwd: top,
        encoding: "utf8",
        timeout: gitTimeoutMs,
        maxBuffer: 64 * 1024 * 1024,
        stdio: ["ignore", "pipe", "ignore"],
      },
    );
  } catch {
    return undefined;
  }
  const listed = parsePorcelain(output);
  const entries: Record<string, SnapshotEntry> = {};
  for (const { status, path } of listed.slice(0, maxEntries)) {
    entries[path] = { status, stamp: stampOf(join(top, path)) };
  }
  for (const path of alsoStamp) {
    if (!Object.hasOwn(entries, path)) {
      entries[path] = { status: "  ", stamp: stampOf(join(top, path)) };
    }
  }
  return { top, entries, truncated: listed.length > maxEntries };
}

function sameStamp(a: FileStamp, b: FileStamp): boolean {
  if (a === null || b === null) return a === b;
  return a.size === b.size && a.mtimeMs === b.mtimeMs && a.ctimeMs === b.ctimeMs;
}

/**
 * The files (relative to the top, `/`) that changed between two snapshots of one work tree:
 * listed before, with another stamp after (written, deleted, restored); or clean before and
 * changed in the work tree after (modified, deleted, new). Index-only changes are no writes.
 * Pure.
 */
export function changedFiles(before: WorktreeSnapshot, after: WorktreeSnapshot): string[] {
  const changed: string[] = [];
  for (const [path, entry] of Object.entries(after.entries)) {
    const earlier = before.entries[path];
    if (earlier !== undefined) {
      if (!sameStamp(earlier.stamp, entry.stamp)) changed.push(path);
      continue;
    }
    // Clean before: a change in the work tree column (or a new file) is the command's.
    const worktree = entry.status.charAt(1);
    if (entry.status === "??" || worktree !== " " || entry.stamp === null) changed.push(path);
  }
  return changed.sort();
}
