import { getEventListeners } from "node:events";
import { join } from "node:path";
import Database from "better-sqlite3";
import { describe, expect, it, vi } from "vitest";
import type { StoreChange } from "../../../src/context/context-store.js";
import type { EmbeddedStore } from "../../../src/context/embedded/embedded-store.js";
import { CompileEpisodeError } from "../../../src/context/errors/compile-episode-error.js";
import { CompileTimeoutError } from "../../../src/context/errors/compile-timeout-error.js";
import { StoreValidationError } from "../../../src/context/errors/store-validation-error.js";
import { embeddedStoresPerTest } from "../../support/embedded-stores.js";
import { useTempDir } from "../../support/temp-dir.js";

const open = embeddedStoresPerTest();

function note(subjectId: string, content: string) {
  return { subjectId, source: "agent", type: "implementation_note", payload: { content } };
}

/** Ids `id-1`, `id-2`, … in call order, so a test knows a compile job's id in advance. */
function countingIds(): () => string {
  let next = 0;
  return () => `id-${++next}`;
}

describe("EmbeddedStore.compileMemories", () => {
  const tempDir = useTempDir("shared-ctx-core-compile-");

  it("compiles each episode once, however often it is called with nothing new", async () => {
    const store = open();
    await store.createEpisode(note("s", "one"));
    expect((await store.compileMemories("s")).memoriesCreated).toBe(1);
    expect((await store.compileMemories("s")).memoriesCreated).toBe(0);
    expect((await store.compileMemories("s")).memoriesCreated).toBe(0);
    await store.createEpisode(note("s", "two"));
    const { memories } = await store.compileMemories("s");
    expect(memories.map((memory) => memory.content)).toEqual(["two"]);
  });

  it("records no dispute on a memory that disputes nothing", async () => {
    const store = open();
    await store.createEpisode(note("s", "one"));
    const { memories } = await store.compileMemories("s");
    expect(memories[0]?.metadata).toEqual({ source: "agent", episodeType: "implementation_note" });
  });

  it("refuses a missing subject, naming the field", async () => {
    const store = open();
    await expect(store.compileMemories("")).rejects.toThrow(StoreValidationError);
    await expect(store.compileMemories("")).rejects.toMatchObject({ field: "subjectId" });
  });

  it("wakes this process's watchers only when it created memories", async () => {
    const path = join(tempDir(), "store.db");
    const store = open({ path });
    const seen: StoreChange["type"][] = [];
    store.watch("s", (change) => seen.push(change.type));
    // Another process writes and compiles; its changes reach this watcher through the poll.
    const other = open({ path });
    await other.createEpisode(note("s", "elsewhere"));
    await other.compileMemories("s");
    // Nothing left to compile here: the compile writes nothing, and wakes nobody.
    const compiling = store.compileMemories("s");
    expect(seen).toEqual([]);
    expect((await compiling).memoriesCreated).toBe(0);
    await vi.waitFor(() => expect(seen).toEqual(["episode", "memory"]), { timeout: 5_000 });
    // A compile that creates a memory delivers it at once.
    await store.createEpisode(note("s", "here"));
    expect(seen).toEqual(["episode", "memory", "episode"]);
    await store.compileMemories("s");
    expect(seen).toEqual(["episode", "memory", "episode", "memory"]);
  });

  describe("an episode whose memory cannot be stored", () => {
    /** A file store whose database refuses any memory with content "poison". */
    function poisoned(): EmbeddedStore {
      const path = join(tempDir(), "store.db");
      const store = open({ path });
      // A second connection installs a trigger: it stands in for a driver error.
      const db = new Database(path);
      db.exec(`CREATE TRIGGER refuse_poison BEFORE INSERT ON memories WHEN NEW.content = 'poison'
        BEGIN SELECT RAISE(ABORT, 'secret driver text'); END;`);
      db.close();
      return store;
    }

    it("is skipped with the SQLite code as its reason; at most 20 are named", async () => {
      const store = poisoned();
      const bad = (
        await store.createEpisodesBatch(Array.from({ length: 21 }, () => note("s", "poison")))
      ).episodes;
      await store.createEpisode(note("s", "fine"));
      const error = await store.compileMemories("s").catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(CompileEpisodeError);
      const failure = error as CompileEpisodeError;
      expect(failure.skipped).toEqual(
        bad.slice(0, 20).map((episode) => ({
          episodeId: episode.id,
          type: "implementation_note",
          reason: "the database refused its memory (SQLITE_CONSTRAINT_TRIGGER)",
        })),
      );
      expect(failure.memoriesCreated).toBe(1);
      expect(failure.message).toContain("and 19 more");
      expect(failure.message).not.toContain("secret driver text");
      // The rest did compile.
      const memories = await store.searchMemories("s");
      expect(memories.map((memory) => memory.content)).toEqual(["fine"]);
    });

    it("is skipped naming the class of an error that is not the database's", async () => {
      const ids = countingIds();
      let failNextId = false;
      const store = open({
        generateId: () => {
          if (failNextId) {
            failNextId = false;
            throw new TypeError("the id source failed");
          }
          return ids();
        },
      });
      const first = await store.createEpisode(note("s", "one"));
      await store.createEpisode(note("s", "two"));
      failNextId = true;
      const error = await store.compileMemories("s").catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(CompileEpisodeError);
      expect((error as CompileEpisodeError).skipped).toEqual([
        {
          episodeId: first.id,
          type: "implementation_note",
          reason: "an internal error while compiling it (TypeError)",
        },
      ]);
      expect((error as CompileEpisodeError).memoriesCreated).toBe(1);
    });
  });

  describe("the search index on disk", () => {
    // Written once and read by every later version: the scope prefix of each word is part of the
    // file format (s + 20 hex digits of SHA-256 of the tenant and subject + x).
    it("holds each word behind its tenant and subject's prefix", async () => {
      const path = join(tempDir(), "store.db");
      const store = open({ path });
      const tenant = store.forTenant("acme");
      for (const view of [store, tenant]) {
        await view.createEpisode(note("run", "Rotate keys"));
        await view.compileMemories("run");
      }
      const db = new Database(path, { readonly: true });
      const terms = db.prepare("SELECT terms FROM memory_fts ORDER BY rowid").pluck().all();
      db.close();
      expect(terms).toEqual([
        "sad8ed988db15fbbfc85dxrotate sad8ed988db15fbbfc85dxkeys",
        "s3eb079d861a68104cb0dxrotate s3eb079d861a68104cb0dxkeys",
      ]);
    });
  });
});

describe("EmbeddedStore.compileMemoriesWait", () => {
  it("ends at once when its signal aborts, before the job has run", async () => {
    const store = open({ generateId: countingIds() });
    await store.createEpisode(note("s", "one"));
    const controller = new AbortController();
    const waiting = store.compileMemoriesWait("s", { signal: controller.signal });
    const reason = new Error("stop");
    controller.abort(reason);
    await expect(waiting).rejects.toBe(reason);
    // id-1 is the episode, id-2 the job it started.
    expect((await store.getCompileStatus("id-2")).status).toBe("pending");
  });

  it("leaves no listener on the signal once the job is done", async () => {
    const store = open();
    await store.createEpisode(note("s", "one"));
    const { signal } = new AbortController();
    await expect(store.compileMemoriesWait("s", { signal })).resolves.toMatchObject({
      status: "completed",
    });
    expect(getEventListeners(signal, "abort")).toEqual([]);
  });

  it("polls a job that cannot record its status until timeoutMs, then throws CompileTimeoutError", async () => {
    vi.useFakeTimers();
    let goodReadings = Number.POSITIVE_INFINITY;
    const store = open({
      generateId: countingIds(),
      // A clock that stops after the job is queued: the job can record neither its start nor
      // its failure, and stays "pending".
      now: () => {
        if (goodReadings-- <= 0) throw new Error("the clock stopped");
        return new Date(0);
      },
    });
    await store.createEpisode(note("s", "one"));
    goodReadings = 1;
    let outcome: unknown;
    store.compileMemoriesWait("s", { timeoutMs: 1_000, pollIntervalMs: 100 }).catch((error) => {
      outcome = error;
    });
    await vi.advanceTimersByTimeAsync(1_000);
    expect(outcome).toBeInstanceOf(CompileTimeoutError);
    expect((await store.getCompileStatus("id-2")).status).toBe("pending");
  });
});
