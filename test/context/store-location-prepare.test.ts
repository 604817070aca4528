import { mkdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { EmbeddedStore } from "../../src/context/embedded/embedded-store.js";
import { DbPathError } from "../../src/context/errors/db-path-error.js";
import { prepareDbPath } from "../../src/context/store-location.js";
import { useTempDir } from "../support/temp-dir.js";

// biome-ignore lint/correctness/useHookAtTopLevel: useTempDir is a vitest helper, not a React hook.
const tempDir = useTempDir("shared-ctx-db-path-");

function refusal(work: () => unknown): DbPathError {
  try {
    work();
  } catch (error) {
    if (error instanceof DbPathError) return error;
    throw error;
  }
  throw new Error("expected a DbPathError");
}

describe("prepareDbPath", () => {
  it("refuses /proc/nope/x.db at once, naming the folder (Node's recursive mkdir spins there)", () => {
    const error = refusal(() => prepareDbPath("/proc/nope/x.db"));
    expect(error.folder).toBe("/proc/nope");
    expect(error.path).toBe("/proc/nope/x.db");
    expect(error.message).toBe(
      "cannot use the database /proc/nope/x.db: /proc/nope cannot be created (ENOENT)",
    );
  });

  it("creates every missing folder, outermost first, and says which", () => {
    const base = tempDir();
    const path = join(base, "a", "b", "store.db");
    expect(prepareDbPath(path)).toEqual({ created: [join(base, "a"), join(base, "a", "b")] });
    expect(statSync(join(base, "a", "b")).isDirectory()).toBe(true);
    expect(prepareDbPath(path)).toEqual({ created: [] });
  });

  it("names a file standing where a folder should be", () => {
    const base = tempDir();
    writeFileSync(join(base, "file"), "");
    const error = refusal(() => prepareDbPath(join(base, "file", "store.db")));
    expect(error.folder).toBe(join(base, "file"));
    expect(error.problem).toBe("is a file, not a folder");
    const deeper = refusal(() => prepareDbPath(join(base, "file", "x", "store.db")));
    expect(deeper.folder).toBe(join(base, "file"));
  });

  it("refuses a folder given as the database, with a hint", () => {
    const base = tempDir();
    mkdirSync(join(base, "dir"));
    const error = refusal(() => prepareDbPath(join(base, "dir")));
    expect(error.folder).toBe(join(base, "dir"));
    expect(error.message).toContain("is a folder; give a database file inside it");
  });

  it("needs nothing for :memory:", () => {
    expect(prepareDbPath(":memory:")).toEqual({ created: [] });
  });
});

describe("EmbeddedStore on a path that cannot be used", () => {
  it("throws the DbPathError before opening anything", () => {
    const error = refusal(() => new EmbeddedStore({ path: "/proc/nope/x.db" }));
    expect(error.folder).toBe("/proc/nope");
  });
});
