import { execFileSync } from "node:child_process";
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  changedFiles,
  parsePorcelain,
  takeSnapshot,
  type WorktreeSnapshot,
} from "../../src/hooks/worktree-snapshot.js";
import { useTempDir } from "../support/temp-dir.js";

const stamp = (size: number, time = 1) => ({ size, mtimeMs: time, ctimeMs: time });
const snapshot = (entries: WorktreeSnapshot["entries"]): WorktreeSnapshot => ({
  top: "/r",
  entries,
  truncated: false,
});

describe("parsePorcelain", () => {
  it("reads each record, and a rename's old path as well", () => {
    expect(
      parsePorcelain(" M a.ts\u0000?? b c.ts\u0000R  new.ts\u0000old.ts\u0000D  gone.ts\u0000"),
    ).toEqual([
      { status: " M", path: "a.ts" },
      { status: "??", path: "b c.ts" },
      { status: "R ", path: "new.ts" },
      { status: "R ", path: "old.ts" },
      { status: "D ", path: "gone.ts" },
    ]);
  });
});

describe("changedFiles", () => {
  it("counts a new stamp, a new file, a deletion and a restore as writes; an index change not", () => {
    const before = snapshot({
      "dirty.ts": { status: " M", stamp: stamp(5) },
      "restored.ts": { status: " M", stamp: stamp(5) },
      "staged.ts": { status: " M", stamp: stamp(5) },
    });
    const after = snapshot({
      "dirty.ts": { status: " M", stamp: stamp(6, 2) },
      "restored.ts": { status: "  ", stamp: stamp(4, 2) },
      "staged.ts": { status: "M ", stamp: stamp(5) },
      "new.ts": { status: "??", stamp: stamp(1) },
      "gone.ts": { status: " D", stamp: null },
      "edited.ts": { status: " M", stamp: stamp(3) },
    });
    expect(changedFiles(before, after)).toEqual([
      "dirty.ts",
      "edited.ts",
      "gone.ts",
      "new.ts",
      "restored.ts",
    ]);
  });
});

describe("takeSnapshot", () => {
  const tempDir = useTempDir("shared-ctx-snapshot-");

  it("sees what real commands did to a real work tree", () => {
    const top = tempDir();
    const git = (...args: string[]) =>
      execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@e", ...args], { cwd: top });
    writeFileSync(join(top, "a.ts"), "a\n");
    writeFileSync(join(top, "b.ts"), "b\n");
    git("init", "-q");
    git("add", "-A");
    git("commit", "-qm", "x");
    writeFileSync(join(top, "b.ts"), "b2\n");
    const before = takeSnapshot(top);
    expect(before).toBeDefined();
    writeFileSync(join(top, "a.ts"), "a2\n");
    git("checkout", "--", "b.ts");
    rmSync(join(top, "a.ts"));
    writeFileSync(join(top, "c.ts"), "c\n");
    const after = takeSnapshot(top, Object.keys(before?.entries ?? {}));
    expect(changedFiles(before as WorktreeSnapshot, after as WorktreeSnapshot)).toEqual([
      "a.ts",
      "b.ts",
      "c.ts",
    ]);
  });

  it("is undefined outside a work tree", () => {
    expect(takeSnapshot(tempDir())).toBeUndefined();
  });
});
