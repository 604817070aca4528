import { createHash } from "node:crypto";
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { WorktreeSnapshot } from "./worktree-snapshot.js";

/**
 * Where a Bash call's before-snapshot waits for its `PostToolUse` (two processes apart): one small
 * JSON file per call in the user's temp folder, named by a hash of the work tree, the session and
 * the tool call's id, read and removed after the call. A call that never ends (refused, killed)
 * leaves its file; files older than a day are swept when the folder holds many.
 */

/** Files in the folder before old ones are swept. */
const sweepAbove = 200;
const dayMs = 24 * 60 * 60 * 1000;

/** The folder of the snapshots: `user`'s own, under the temp folder `base`. */
export function snapshotFolder(base: string, user: string): string {
  return join(base, `shared-ctx-${user}`, "bash-snapshots");
}

/** Which call a snapshot belongs to. */
export interface SnapshotKey {
  readonly top: string;
  readonly session: string;
  /** Claude Code's `tool_use_id`; empty when the harness sends none. */
  readonly toolUseId: string;
}

function fileOf(folder: string, key: SnapshotKey): string {
  const name = createHash("sha256")
    .update(`${key.top}\u0000${key.session}\u0000${key.toolUseId}`)
    .digest("hex")
    .slice(0, 32);
  return join(folder, `${name}.json`);
}

/** Keeps `snapshot` for the call's `PostToolUse`. Best effort: a snapshot not kept is no diff. */
export function keepSnapshot(
  folder: string,
  key: SnapshotKey,
  snapshot: WorktreeSnapshot,
  now: number,
): void {
  try {
    mkdirSync(folder, { recursive: true, mode: 0o700 });
    writeFileSync(fileOf(folder, key), JSON.stringify(snapshot), { mode: 0o600 });
    sweep(folder, now);
  } catch {
    // A temp folder that cannot be written: the call is judged by the parser alone.
  }
}

/** The call's before-snapshot, removed from the folder; undefined when there is none. */
export function takeKeptSnapshot(folder: string, key: SnapshotKey): WorktreeSnapshot | undefined {
  const file = fileOf(folder, key);
  try {
    const snapshot = JSON.parse(readFileSync(file, "utf8")) as WorktreeSnapshot;
    rmSync(file, { force: true });
    return snapshot.top === key.top ? snapshot : undefined;
  } catch {
    return undefined;
  }
}

/** Removes snapshots older than a day once the folder holds many. */
function sweep(folder: string, now: number): void {
  const names = readdirSync(folder);
  if (names.length <= sweepAbove) return;
  for (const name of names) {
    const file = join(folder, name);
    const stats = statSync(file, { throwIfNoEntry: false });
    if (stats && now - stats.mtimeMs > dayMs) rmSync(file, { force: true });
  }
}
