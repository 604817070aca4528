import { closeSync, mkdirSync, openSync, statSync, writeFileSync, writeSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { EmbeddedStore } from "../../src/context/embedded/embedded-store.js";
import { DbPathError } from "../../src/context/errors/db-path-error.js";
import { StoreDamagedError } from "../../src/context/errors/store-damaged-error.js";
import { StoreFileError } from "../../src/context/errors/store-file-error.js";
import { openContextStore } from "../../src/context/open-context-store.js";
import { withFileErrors } from "../../src/context/store-file-errors.js";
import { useTempDir } from "../support/temp-dir.js";

// biome-ignore lint/correctness/useHookAtTopLevel: useTempDir is a vitest helper, not a React hook.
const tempDir = useTempDir("shared-ctx-store-file-");

async function rejection(work: Promise<unknown>): Promise<unknown> {
  return work.then(
    () => {
      throw new Error("expected a rejection");
    },
    (error: unknown) => error,
  );
}

describe("StoreFileError.from", () => {
  it.each([
    ["SQLITE_NOTADB", "is not a shared-ctx database"],
    ["SQLITE_CORRUPT", "is damaged"],
    ["SQLITE_READONLY_DBMOVED", "is read-only"],
    ["SQLITE_CANTOPEN", "cannot be opened"],
    ["SQLITE_FULL", "the disk holding it is full"],
    ["SQLITE_IOERR_WRITE", "an I/O error"],
  ])("names the file and the fix for %s", (code, words) => {
    const error = StoreFileError.from(Object.assign(new Error("x"), { code }), "/data/store.db");
    expect(error?.message).toMatch(new RegExp(`^the database /data/store\\.db .*${words}`));
    expect(error?.message).toContain(`(${code})`);
    expect(error?.code).toBe(code);
  });

  it.each([["SQLITE_BUSY"], ["SQLITE_CONSTRAINT_UNIQUE"], ["ENOENT"]])(
    "leaves %s alone (not about the file)",
    (code) => {
      expect(StoreFileError.from(Object.assign(new Error("x"), { code }), "/f")).toBeUndefined();
    },
  );

  it("leaves errors without a code alone", () => {
    expect(StoreFileError.from(new Error("x"), "/f")).toBeUndefined();
    expect(StoreFileError.from("x", "/f")).toBeUndefined();
  });
});

describe("openContextStore on a file that is not a usable database", () => {
  it("names a file that is not a database", async () => {
    const path = join(tempDir(), "notes.db");
    writeFileSync(path, "these are my notes, not a database ".repeat(200));
    const error = await rejection(openContextStore({ db: path, env: {}, cwd: "/" }));
    // Refused by the store itself at open (so `serve`, which opens it directly, says the same).
    expect(error).toBeInstanceOf(StoreDamagedError);
    expect((error as StoreDamagedError).path).toBe(path);
    expect((error as StoreDamagedError).detail).toBe("SQLITE_NOTADB");
    expect((error as Error).message).toContain("is not a shared-ctx database");
  });

  it("names a folder given as the database (mcp --db <dir>)", async () => {
    const folder = join(tempDir(), "dir");
    mkdirSync(folder);
    const error = await rejection(openContextStore({ db: folder, env: {}, cwd: "/" }));
    expect(error).toBeInstanceOf(DbPathError);
    expect((error as DbPathError).message).toContain(`${folder} is a folder`);
  });

  it("names a database damaged mid-file when a read meets the damage", async () => {
    const path = join(tempDir(), "store.db");
    const writer = new EmbeddedStore({ path });
    for (let index = 0; index < 300; index += 1) {
      await writer.createEpisode({
        subjectId: "s",
        source: "a",
        type: "t",
        payload: { content: "x".repeat(500) },
      });
    }
    await writer.close();
    const middle = Math.floor(statSync(path).size / 2 / 4096) * 4096;
    const file = openSync(path, "r+");
    writeSync(file, Buffer.alloc(8192, 0xab), 0, 8192, middle);
    closeSync(file);
    const store = await openContextStore({ db: path, env: {}, cwd: "/" });
    try {
      const error = await rejection(store.getTimeline("s", { limit: 1000 }));
      expect(error).toBeInstanceOf(StoreFileError);
      expect((error as StoreFileError).message).toMatch(
        new RegExp(`^the database ${path.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")} is damaged`),
      );
    } finally {
      await store.close();
    }
  });

  it("names the file when a later call fails on it", async () => {
    const store = withFileErrors(new EmbeddedStore({ path: ":memory:" }), "/data/store.db");
    // A failure from inside the store, as SQLite reports a full disk.
    const failing = new Proxy(store, {});
    const full = Object.assign(new Error("database or disk is full"), { code: "SQLITE_FULL" });
    const wrapped = withFileErrors(
      {
        createEpisode: () => Promise.reject(full),
        forTenant: () => ({ getTimeline: () => Promise.reject(full) }),
      },
      "/data/store.db",
    );
    expect(await rejection(wrapped.createEpisode())).toMatchObject({
      name: "StoreFileError",
      code: "SQLITE_FULL",
      path: "/data/store.db",
    });
    expect(await rejection(wrapped.forTenant().getTimeline())).toMatchObject({
      name: "StoreFileError",
    });
    // The real store still works through the wrapper, private fields and all.
    await failing.createEpisode({ subjectId: "s", source: "a", type: "t", payload: {} });
    expect((await failing.getTimeline("s")).episodes).toHaveLength(1);
    expect(failing).toBeInstanceOf(EmbeddedStore);
    await failing.close();
  });
});
