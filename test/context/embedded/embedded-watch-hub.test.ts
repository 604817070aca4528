import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { CreateEpisodeInput, StoreChange } from "../../../src/context/context-store.js";
import { EmbeddedStore } from "../../../src/context/embedded/embedded-store.js";

// Polling runs on fake interval timers, so a test decides exactly when a tick happens; group
// commit (setImmediate) and microtasks stay real.
const pollIntervalMs = 50;

let dir: string;
let path: string;
const stores: EmbeddedStore[] = [];
const raws: Database.Database[] = [];

beforeEach(() => {
  vi.useFakeTimers({ toFake: ["setInterval", "clearInterval"] });
  dir = mkdtempSync(join(tmpdir(), "shared-ctx-watch-hub-"));
  path = join(dir, "store.db");
});
afterEach(async () => {
  await Promise.all(stores.splice(0).map((store) => store.close()));
  for (const raw of raws.splice(0)) raw.close();
  vi.useRealTimers();
  rmSync(dir, { recursive: true, force: true });
});

/** One process's handle on the shared file; a second call is another process, honestly. */
function openProcess(options: { groupCommit?: boolean } = {}): EmbeddedStore {
  const store = new EmbeddedStore({ path, pollIntervalMs, ...options });
  stores.push(store);
  return store;
}

function openRaw(): Database.Database {
  const raw = new Database(path);
  raws.push(raw);
  return raw;
}

const note = (content: string, subjectId = "run"): CreateEpisodeInput => ({
  subjectId,
  source: "coder",
  type: "message",
  payload: { content },
});

function record() {
  const seen: string[] = [];
  const listener = (change: StoreChange) => {
    seen.push(
      change.type === "episode"
        ? `episode ${String(change.episode.payload.content)}`
        : `memory ${change.memory.content}`,
    );
  };
  return { seen, listener };
}

/** `count` episodes, in batches of the most one batch may hold. */
async function writeNotes(store: EmbeddedStore, count: number): Promise<void> {
  for (let start = 0; start < count; start += 100) {
    const size = Math.min(100, count - start);
    await store.createEpisodesBatch(
      Array.from({ length: size }, (_, index) => note(`n${start + index}`)),
    );
  }
}

const tick = () => vi.advanceTimersByTime(pollIntervalMs);
const microtasks = () => new Promise<void>((resolve) => queueMicrotask(resolve));

describe("EmbeddedStore.watch change feed", () => {
  it("delivers another process's writes on the next poll tick, not before", async () => {
    const here = openProcess();
    const there = openProcess();
    const { seen, listener } = record();
    here.watch("run", listener);
    await there.createEpisode(note("from there"));
    // A write of this process to another subject does not pull in the other process's rows.
    await here.createEpisode(note("elsewhere", "other"));
    await microtasks();
    expect(seen).toEqual([]);
    tick();
    expect(seen).toEqual(["episode from there"]);
  });

  it("keeps polling for the remaining watchers when one leaves, and stops with the last", async () => {
    const here = openProcess();
    const there = openProcess();
    const first = record();
    const second = record();
    const leaving = here.watch("run", first.listener);
    const staying = here.watch("run", second.listener);
    expect(vi.getTimerCount()).toBe(1);
    leaving.close();
    await there.createEpisode(note("after one left"));
    tick();
    expect(first.seen).toEqual([]);
    expect(second.seen).toEqual(["episode after one left"]);
    staying.close();
    expect(vi.getTimerCount()).toBe(0);
  });

  it("does not poll an in-memory store, which no other process can write", () => {
    const store = new EmbeddedStore({ path: ":memory:", pollIntervalMs });
    stores.push(store);
    store.watch("run", () => {});
    expect(vi.getTimerCount()).toBe(0);
  });

  it("a second watch does not swallow another process's write the first has not seen yet", async () => {
    const here = openProcess();
    const there = openProcess();
    const first = record();
    here.watch("run", first.listener);
    await there.createEpisode(note("before the second watch"));
    here.watch("other", () => {});
    expect(vi.getTimerCount()).toBe(1);
    tick();
    expect(first.seen).toEqual(["episode before the second watch"]);
  });

  it.each([
    { case: "another subject of the same tenant", tenant: null, subject: "other" },
    { case: "the same subject of another tenant", tenant: "acme", subject: "run" },
  ])("deleting $case does not replay this subject to its watchers", async ({ tenant, subject }) => {
    const store = openProcess();
    await store.createEpisode(note("old"));
    await store.forTenant(tenant).createEpisode(note("doomed", subject));
    const { seen, listener } = record();
    store.watch("run", listener);
    await store.forTenant(tenant).deleteSubject(subject);
    await store.createEpisode(note("new"));
    expect(seen).toEqual(["episode new"]);
  });

  it("a watcher of a deleted subject sees episodes written to it afterwards", async () => {
    const store = openProcess();
    await store.createEpisodesBatch([note("one"), note("two")]);
    const { seen, listener } = record();
    store.watch("run", listener);
    await store.deleteSubject("run");
    await store.createEpisode(note("reborn"));
    expect(seen).toEqual(["episode reborn"]);
  });

  it("finishes a listener's change before delivering the write that listener made", async () => {
    const store = openProcess();
    const order: string[] = [];
    store.watch("run", (change) => {
      if (change.type !== "episode") return;
      const content = String(change.episode.payload.content);
      order.push(`start ${content}`);
      if (content === "question") void store.createEpisode(note("answer"));
      order.push(`end ${content}`);
    });
    await store.createEpisodesBatch([note("question"), note("aside")]);
    expect(order).toEqual([
      "start question",
      "end question",
      "start aside",
      "end aside",
      "start answer",
      "end answer",
    ]);
  });

  it("delivers nothing to a watch closed before its replay began", async () => {
    const store = openProcess();
    await store.createEpisode(note("existing"));
    const { seen, listener } = record();
    store.watch("run", listener, { replay: true }).close();
    await microtasks();
    expect(seen).toEqual([]);
  });

  it("stops delivering when a listener closes the whole store", async () => {
    const store = openProcess();
    const { seen, listener } = record();
    store.watch("run", (change) => {
      listener(change);
      void store.close();
    });
    await store.createEpisodesBatch([note("first"), note("second")]);
    expect(seen).toEqual(["episode first"]);
  });

  it("replays a subject longer than one page that also has memories, every change once", async () => {
    const store = openProcess();
    await store.createEpisode(note("compiled"));
    await store.compileMemories("run");
    const count = 520;
    await writeNotes(store, count);
    const { seen, listener } = record();
    store.watch("run", listener, { replay: true });
    await microtasks();
    expect(seen.filter((line) => line.startsWith("episode"))).toHaveLength(count + 1);
    expect(seen.filter((line) => line.startsWith("memory"))).toEqual(["memory compiled"]);
  });

  it("pages through more than one page of another process's memory changes", async () => {
    const here = openProcess();
    const there = openProcess();
    const count = 520;
    await writeNotes(here, count);
    const { seen, listener } = record();
    here.watch("run", listener);
    await there.createEpisode(note("last"));
    await there.compileMemories("run");
    tick();
    expect(seen.filter((line) => line.startsWith("episode"))).toEqual(["episode last"]);
    expect(seen.filter((line) => line.startsWith("memory"))).toHaveLength(count + 1);
  });

  it("reports a row it cannot read to onError once, not on every poll tick", async () => {
    const store = openProcess();
    const errors: unknown[] = [];
    const { seen, listener } = record();
    store.watch("run", listener, { onError: (error) => errors.push(error) });
    openRaw()
      .prepare(
        `INSERT INTO episodes (seq, id, tenant_id, subject_id, source, type, payload, metadata, provenance, session_id, created_at)
         VALUES (1, 'broken', NULL, 'run', 'foreign', 'message', 'not json', '{}', '{}', NULL, '2026-01-01T00:00:00.000Z')`,
      )
      .run();
    tick();
    tick();
    tick();
    expect(seen).toEqual([]);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toBeInstanceOf(SyntaxError);
  });
});

describe("EmbeddedStore options.groupCommit on a tenant view", () => {
  it("defers creates made in one turn to one commit after it, on every tenant view", async () => {
    const here = openProcess({ groupCommit: true });
    const there = openProcess();
    const pending = [
      here.createEpisode(note("a")),
      here.forTenant("acme").createEpisode(note("b")),
    ];
    expect((await there.getTimeline("run")).episodes).toEqual([]);
    await Promise.all(pending);
    expect((await there.getTimeline("run")).episodes).toHaveLength(1);
    expect((await there.forTenant("acme").getTimeline("run")).episodes).toHaveLength(1);
  });
});
