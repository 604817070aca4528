import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { WatchCursor } from "../../../src/context/change-feed.js";
import type { StoreChange } from "../../../src/context/context-store.js";
import {
  type PostgresChangeSource,
  PostgresWatchHub,
} from "../../../src/context/postgres/watch-hub.js";

// The hub on its own, over an in-memory change source that stands in for the database: a test
// decides when a cursor read or a catch-up query answers, fails it, and fires the LISTEN
// callbacks (a NOTIFY, a reconnect, a lost connection) by hand. The fallback poll runs on fake
// interval timers, so a test decides when it ticks.
const pollIntervalMs = 50;

const hubs: PostgresWatchHub[] = [];
beforeEach(() => {
  vi.useFakeTimers({ toFake: ["setInterval", "clearInterval"] });
});
afterEach(() => {
  for (const hub of hubs.splice(0)) hub.close();
  vi.useRealTimers();
});

const episode = (content: string): StoreChange =>
  ({ type: "episode", episode: { payload: { content } } }) as unknown as StoreChange;
const memory = (content: string): StoreChange =>
  ({ type: "memory", memory: { content } }) as unknown as StoreChange;

/** A gate a test opens (or fails) by hand; `undefined` means the source answers at once. */
interface Gate {
  promise: Promise<void>;
  open(): void;
  fail(error: unknown): void;
}
function gate(): Gate {
  let open!: () => void;
  let fail!: (error: unknown) => void;
  const promise = new Promise<void>((resolve, reject) => {
    open = resolve;
    fail = reject;
  });
  return { promise, open, fail };
}

/** The subjects' committed changes, keyed `tenant/subject`, and what the hub asked of them. */
class FakeSource implements PostgresChangeSource {
  readonly episodes = new Map<string, StoreChange[]>();
  readonly memories = new Map<string, StoreChange[]>();
  cursorReads = 0;
  changeReads = 0;
  listens = 0;
  stops = 0;
  /** The next cursor reads wait on (or fail with) these, in order. */
  readonly cursorGates: Gate[] = [];
  /** The next catch-up queries wait on (or fail with) these, in order. */
  readonly changeGates: Gate[] = [];
  onChange: (key: string) => void = () => {};
  onReconnect: () => void = () => {};
  onError: (error: unknown) => void = () => {};

  commit(key: string, ...changes: StoreChange[]): void {
    for (const change of changes) {
      const into = change.type === "episode" ? this.episodes : this.memories;
      into.set(key, [...(into.get(key) ?? []), change]);
    }
  }

  async cursors(tenant: string, subjectId: string): Promise<WatchCursor> {
    this.cursorReads += 1;
    const key = `${tenant}/${subjectId}`;
    // The end as it stands when the read is made, even if the answer arrives later.
    const end = {
      episode: this.episodes.get(key)?.length ?? 0,
      memory: this.memories.get(key)?.length ?? 0,
    };
    await this.cursorGates.shift()?.promise;
    return end;
  }

  async changesAfter(tenant: string, subjectId: string, after: WatchCursor, limit: number) {
    this.changeReads += 1;
    await this.changeGates.shift()?.promise;
    const key = `${tenant}/${subjectId}`;
    const episodes = (this.episodes.get(key) ?? [])
      .slice(after.episode, after.episode + limit)
      .map((change, index) => ({ change, episode: after.episode + index + 1 }));
    const memories = (this.memories.get(key) ?? [])
      .slice(after.memory, after.memory + limit)
      .map((change, index) => ({ change, memory: after.memory + index + 1 }));
    return [...episodes, ...memories];
  }

  listen(
    onChange: (key: string) => void,
    onReconnect: () => void,
    onError: (error: unknown) => void,
  ): () => void {
    this.listens += 1;
    this.onChange = onChange;
    this.onReconnect = onReconnect;
    this.onError = onError;
    return () => {
      this.stops += 1;
    };
  }
}

function open(): { hub: PostgresWatchHub; source: FakeSource } {
  const source = new FakeSource();
  const hub = new PostgresWatchHub(source, { pollIntervalMs });
  hubs.push(hub);
  return { hub, source };
}

function record() {
  const seen: string[] = [];
  const errors: unknown[] = [];
  const listener = (change: StoreChange) => {
    seen.push(
      change.type === "episode"
        ? `episode ${String(change.episode.payload.content)}`
        : `memory ${change.memory.content}`,
    );
  };
  return { seen, errors, listener, onError: (error: unknown) => errors.push(error) };
}

/** Lets every pending promise chain of the fake source run to its end. */
const flush = async () => {
  for (let round = 0; round < 20; round += 1) await new Promise<void>((r) => setImmediate(r));
};

const key = "t/run";

/** Tells the hub the subject changed, as a NOTIFY would, and lets the read it starts run. */
async function notified(hub: PostgresWatchHub): Promise<void> {
  hub.notify(key);
  await flush();
}

/** Commits `changes` to the subject, then tells the hub and lets it read them. */
async function commitAndNotify(
  hub: PostgresWatchHub,
  source: FakeSource,
  ...changes: StoreChange[]
): Promise<void> {
  source.commit(key, ...changes);
  await notified(hub);
}

describe("PostgresWatchHub start and replay", () => {
  it("a watch without replay starts at the subject's end and asks nothing more until told", async () => {
    const { hub, source } = open();
    source.commit(key, episode("old"), memory("old"));
    const { seen, listener } = record();
    hub.watch("t", "run", key, listener);
    await hub.settled();
    await flush();
    expect(source.changeReads).toBe(0);
    await commitAndNotify(hub, source, episode("new"));
    expect(seen).toEqual(["episode new"]);
  });

  it("a replay delivers the subject's existing changes without being told", async () => {
    const { hub, source } = open();
    source.commit(key, episode("old"), memory("compiled"));
    const { seen, listener } = record();
    hub.watch("t", "run", key, listener, { replay: true });
    await flush();
    expect(seen).toEqual(["episode old", "memory compiled"]);
  });

  it("settled() waits until every started watch knows its cursor", async () => {
    const { hub, source } = open();
    const reading = gate();
    source.cursorGates.push(reading);
    hub.watch("t", "run", key, () => {});
    let settled = false;
    void hub.settled().then(() => {
      settled = true;
    });
    await flush();
    expect(settled).toBe(false);
    reading.open();
    await flush();
    expect(settled).toBe(true);
  });

  it("a change noticed while the cursor is being read is delivered once the cursor is known", async () => {
    const { hub, source } = open();
    const reading = gate();
    source.cursorGates.push(reading);
    const { seen, listener } = record();
    hub.watch("t", "run", key, listener);
    source.commit(key, episode("during the read"));
    hub.notify(key);
    reading.open();
    await flush();
    expect(seen).toEqual(["episode during the read"]);
  });

  it("a watch closed while its cursor is read asks the database nothing more", async () => {
    const { hub, source } = open();
    const reading = gate();
    source.cursorGates.push(reading);
    const { seen, listener } = record();
    const subscription = hub.watch("t", "run", key, listener);
    source.commit(key, episode("during the read"));
    hub.notify(key);
    subscription.close();
    reading.open();
    await flush();
    expect(seen).toEqual([]);
    expect(source.changeReads).toBe(0);
  });
});

describe("PostgresWatchHub when the starting cursor cannot be read", () => {
  it("reports the failure, then starts from the subject's end on the next notice", async () => {
    const { hub, source } = open();
    const reading = gate();
    source.cursorGates.push(reading);
    const { seen, errors, listener, onError } = record();
    hub.watch("t", "run", key, listener, { onError });
    reading.fail(new Error("connection lost"));
    await flush();
    expect(errors).toEqual([new Error("connection lost")]);
    source.commit(key, episode("before the retry"));
    // The first notice reads the cursor again (from "now"), and a second notice while it is
    // being read does not read it twice.
    hub.notify(key);
    await notified(hub);
    expect(source.cursorReads).toBe(2);
    expect(seen).toEqual([]);
    await commitAndNotify(hub, source, episode("after the retry"));
    expect(seen).toEqual(["episode after the retry"]);
  });

  it("waits for other watches to finish starting before reading the cursor again", async () => {
    const { hub, source } = open();
    const failing = gate();
    const other = gate();
    source.cursorGates.push(failing, other);
    const { seen, errors, listener, onError } = record();
    hub.watch("t", "run", key, listener, { onError });
    hub.watch("t", "other", "t/other", () => {});
    failing.fail(new Error("connection lost"));
    await flush();
    expect(errors).toHaveLength(1);
    await notified(hub);
    expect(source.cursorReads).toBe(2);
    other.open();
    await flush();
    await notified(hub);
    expect(source.cursorReads).toBe(3);
    await commitAndNotify(hub, source, episode("new"));
    expect(seen).toEqual(["episode new"]);
  });

  it("reports a failed retry too, and keeps trying", async () => {
    const { hub, source } = open();
    source.cursorGates.push(gate(), gate(), gate());
    const [first, retry] = source.cursorGates as [Gate, Gate, Gate];
    const { errors, listener, onError } = record();
    hub.watch("t", "run", key, listener, { onError });
    first.fail(new Error("first"));
    await flush();
    hub.notify(key);
    retry.fail(new Error("retry"));
    await flush();
    expect(errors).toEqual([new Error("first"), new Error("retry")]);
  });

  it.each([
    { case: "the first read", failing: 0 },
    { case: "a retry", failing: 1 },
  ])("says nothing when $case fails after the watch closed", async ({ failing }) => {
    const { hub, source } = open();
    const reads = [gate(), gate()];
    source.cursorGates.push(...reads);
    const { errors, listener, onError } = record();
    const subscription = hub.watch("t", "run", key, listener, { onError });
    if (failing === 1) {
      reads[0]?.fail(new Error("first"));
      await flush();
      hub.notify(key);
    }
    subscription.close();
    reads[failing]?.fail(new Error("late"));
    await flush();
    expect(errors).toEqual(failing === 1 ? [new Error("first")] : []);
  });
});

describe("PostgresWatchHub delivery", () => {
  it("a notice for another subject does not pull in this subject's unseen changes", async () => {
    const { hub, source } = open();
    const { seen, listener } = record();
    hub.watch("t", "run", key, listener);
    await hub.settled();
    source.commit(key, episode("not announced yet"));
    hub.notify("t/other");
    await flush();
    expect(seen).toEqual([]);
  });

  it.each([
    { case: "episodes", episodes: 520, memories: 1 },
    { case: "memory changes", episodes: 1, memories: 520 },
  ])("replays more than one page of $case, every change once", async ({ episodes, memories }) => {
    const { hub, source } = open();
    for (let index = 0; index < episodes; index += 1) source.commit(key, episode(`e${index}`));
    for (let index = 0; index < memories; index += 1) source.commit(key, memory(`m${index}`));
    const { seen, listener } = record();
    hub.watch("t", "run", key, listener, { replay: true });
    await flush();
    expect(seen.filter((line) => line.startsWith("episode"))).toHaveLength(episodes);
    expect(seen.filter((line) => line.startsWith("memory"))).toHaveLength(memories);
    expect(new Set(seen).size).toBe(seen.length);
  });

  it("delivers a change committed while a delivery runs, after it", async () => {
    const { hub, source } = open();
    const { seen, listener } = record();
    hub.watch("t", "run", key, (change) => {
      listener(change);
      if (seen.length === 1) {
        source.commit(key, episode("answer"));
        hub.notify(key);
      }
    });
    await hub.settled();
    await commitAndNotify(hub, source, episode("question"));
    expect(seen).toEqual(["episode question", "episode answer"]);
  });

  it("a failing listener is reported and the feed goes on", async () => {
    const { hub, source } = open();
    const { seen, errors, listener, onError } = record();
    const boom = new Error("listener failed");
    hub.watch(
      "t",
      "run",
      key,
      (change) => {
        listener(change);
        if (seen.length === 1) throw boom;
      },
      { onError },
    );
    await hub.settled();
    await commitAndNotify(hub, source, episode("one"), episode("two"));
    expect(seen).toEqual(["episode one", "episode two"]);
    expect(errors).toEqual([boom]);
  });

  it("reports a failed catch-up query, but not after the watch closed", async () => {
    const { hub, source } = open();
    const { errors, listener, onError } = record();
    const subscription = hub.watch("t", "run", key, listener, { onError });
    await hub.settled();
    const failing = gate();
    const late = gate();
    source.changeGates.push(failing, late);
    hub.notify(key);
    failing.fail(new Error("query failed"));
    await flush();
    expect(errors).toEqual([new Error("query failed")]);
    await notified(hub);
    subscription.close();
    late.fail(new Error("late"));
    await flush();
    expect(errors).toEqual([new Error("query failed")]);
  });

  it.each([
    { case: "its subscription", closeFrom: "subscription" },
    { case: "the whole hub", closeFrom: "hub" },
  ])("stops delivering mid-batch when a listener closes $case", async ({ closeFrom }) => {
    const { hub, source } = open();
    const { seen, listener } = record();
    const subscription = hub.watch("t", "run", key, (change) => {
      listener(change);
      if (closeFrom === "hub") hub.close();
      else subscription.close();
    });
    await hub.settled();
    await commitAndNotify(hub, source, episode("first"), episode("second"));
    expect(seen).toEqual(["episode first"]);
  });
});

describe("PostgresWatchHub LISTEN connection and fallback poll", () => {
  it("shares one LISTEN connection and poll timer, and stops them with the last watcher", async () => {
    const { hub, source } = open();
    const leaving = hub.watch("t", "run", key, () => {});
    const staying = hub.watch("t", "other", "t/other", () => {});
    expect(source.listens).toBe(1);
    expect(vi.getTimerCount()).toBe(1);
    leaving.close();
    expect(source.stops).toBe(0);
    expect(vi.getTimerCount()).toBe(1);
    staying.close();
    expect(source.stops).toBe(1);
    expect(vi.getTimerCount()).toBe(0);
  });

  it("closing the hub stops the LISTEN connection and the poll", () => {
    const { hub, source } = open();
    hub.watch("t", "run", key, () => {});
    hub.close();
    expect(source.stops).toBe(1);
    expect(vi.getTimerCount()).toBe(0);
  });

  it.each([
    { case: "a NOTIFY for the subject", fire: (s: FakeSource) => s.onChange(key) },
    { case: "a reconnect", fire: (s: FakeSource) => s.onReconnect() },
    { case: "a poll tick", fire: () => vi.advanceTimersByTime(pollIntervalMs) },
  ])("catches up on $case", async ({ fire }) => {
    const { hub, source } = open();
    const { seen, listener } = record();
    hub.watch("t", "run", key, listener);
    await hub.settled();
    source.commit(key, episode("from another replica"));
    fire(source);
    await flush();
    expect(seen).toEqual(["episode from another replica"]);
  });

  it("reports a LISTEN failure to every watcher", async () => {
    const { hub, source } = open();
    const first = record();
    const second = record();
    hub.watch("t", "run", key, first.listener, { onError: first.onError });
    hub.watch("t", "other", "t/other", second.listener, { onError: second.onError });
    const lost = new Error("listen connection lost");
    source.onError(lost);
    expect(first.errors).toEqual([lost]);
    expect(second.errors).toEqual([lost]);
  });
});
