import { afterEach, describe, expect, it, vi } from "vitest";
import type {
  ChangePage,
  Episode,
  Memory,
  StoreChange,
  Timeline,
} from "../../../src/context/context-store.js";
import { TimelineWatch } from "../../../src/context/statewave/statewave-watch.js";
import { deferred } from "../../support/deferred.js";

/**
 * `TimelineWatch` over a server with a change feed (`serve`'s `GET /v1/changes`): one request a
 * round for what changed since the last cursor, never the timeline; without a feed, the timeline.
 */
function episode(index: number): Episode {
  return {
    id: `episode-${index}`,
    subjectId: "run",
    source: "planner",
    type: "implementation_note",
    payload: { content: `note ${index}` },
    metadata: {},
    provenance: {},
    createdAt: new Date(Date.UTC(2026, 0, 1, 0, 0, index)).toISOString(),
  };
}

function memory(index: number, status: Memory["status"] = "active"): Memory {
  const stamp = new Date(Date.UTC(2026, 0, 1, 0, 0, index)).toISOString();
  return {
    id: `memory-${index}`,
    subjectId: "run",
    kind: "architectural_decision",
    content: `decision ${index}`,
    summary: `decision ${index}`,
    confidence: 1,
    validFrom: stamp,
    validTo: null,
    sourceEpisodeIds: [`episode-${index}`],
    metadata: {},
    status,
    createdAt: stamp,
    updatedAt: status === "active" ? stamp : `${stamp.slice(0, 19)}.500Z`,
  };
}

/** A feed serving `log` in pages of `limit` after a numeric cursor, and the cursors it was asked. */
function changeFeed(limit: number) {
  const log: StoreChange[] = [];
  const asked: Array<string | null> = [];
  const readChanges = async (cursor: string | null): Promise<ChangePage> => {
    asked.push(cursor);
    const from = cursor === null ? 0 : Number(cursor);
    const changes = log.slice(from, from + limit);
    return { changes, cursor: String(from + changes.length), hasMore: from + limit < log.length };
  };
  return { log, asked, readChanges };
}

const pollers: TimelineWatch[] = [];
afterEach(() => {
  for (const poller of pollers.splice(0)) poller.close();
  vi.useRealTimers();
});

const timelineReads: number[] = [];
const fetchPage = async (offset: number): Promise<Timeline> => {
  timelineReads.push(offset);
  return { subjectId: "run", episodes: offset === 0 ? [episode(0)] : [], memories: [] };
};

function start(readChanges: ConstructorParameters<typeof TimelineWatch>[0]["readChanges"]) {
  timelineReads.length = 0;
  const poller = new TimelineWatch({
    subjectId: "run",
    fetchPage,
    readChanges,
    pollIntervalMs: 60_000,
  });
  pollers.push(poller);
  return poller;
}

async function join(poller: TimelineWatch): Promise<string[]> {
  const seen: string[] = [];
  const joined = deferred();
  poller.subscribe(
    (change) =>
      seen.push(
        change.type === "episode"
          ? change.episode.id
          : `${change.memory.id}: ${change.memory.status}`,
      ),
    { replay: true, onHistory: () => joined.resolve() },
  );
  await joined.promise;
  return seen;
}

describe("TimelineWatch › options.readChanges", () => {
  it("reads the history from the feed page by page, then one request a round from its cursor", async () => {
    const feed = changeFeed(2);
    feed.log.push(
      { type: "episode", episode: episode(1) },
      { type: "episode", episode: episode(2) },
      { type: "memory", memory: memory(1) },
    );
    const poller = start(feed.readChanges);
    const seen = await join(poller);
    expect(seen).toEqual(["episode-1", "episode-2", "memory-1: active"]);
    expect(feed.asked).toEqual([null, "2"]);

    feed.asked.length = 0;
    await poller.pollNow();
    expect(feed.asked).toEqual(["3"]);

    // A supersede comes back as the memory in its new state: delivered once, as changed.
    feed.log.push(
      { type: "memory", memory: memory(1, "superseded") },
      { type: "episode", episode: episode(2) },
    );
    await poller.pollNow();
    expect(seen.slice(3)).toEqual(["memory-1: superseded"]);
    expect(timelineReads).toEqual([]);
  });

  it("polls the timeline from the first round on when the server has no feed", async () => {
    let asked = 0;
    const poller = start(async () => {
      asked += 1;
      return undefined;
    });
    expect(await join(poller)).toEqual(["episode-0"]);
    await poller.pollNow();
    expect(asked).toBe(1);
    expect(timelineReads.length).toBeGreaterThan(0);
  });
});

describe("TimelineWatch.pollNow", () => {
  it("shares one round among the calls made before it starts, and it sees what each wrote", async () => {
    const feed = changeFeed(100);
    const poller = start(feed.readChanges);
    const seen = await join(poller);
    feed.asked.length = 0;
    feed.log.push({ type: "episode", episode: episode(1) });
    const first = poller.pollNow();
    feed.log.push({ type: "episode", episode: episode(2) });
    const second = poller.pollNow();
    expect(second).toBe(first);
    await second;
    expect(feed.asked).toHaveLength(1);
    expect(seen).toEqual(["episode-1", "episode-2"]);
    // Once that round has run, the next call gets a round of its own.
    await poller.pollNow();
    expect(feed.asked).toHaveLength(2);
  });
});

describe("TimelineWatch › a quiet subject", () => {
  it("doubles the wait after each round that found nothing, up to 8x, and a write brings it back", async () => {
    vi.useFakeTimers();
    const feed = changeFeed(100);
    const poller = new TimelineWatch({
      subjectId: "run",
      fetchPage,
      readChanges: feed.readChanges,
      pollIntervalMs: 10,
    });
    pollers.push(poller);
    await poller.ready;
    const roundsAfter = async (ms: number) => {
      feed.asked.length = 0;
      await vi.advanceTimersByTimeAsync(ms);
      return feed.asked.length;
    };
    // Waits of 10, 20, 40, then 80 ms for good: 150 ms hold four rounds, 160 ms two more.
    expect(await roundsAfter(150)).toBe(4);
    expect(await roundsAfter(160)).toBe(2);
    // A change resets it: the round that finds it, then the interval again.
    feed.log.push({ type: "episode", episode: episode(1) });
    expect(await roundsAfter(80)).toBe(1);
    expect(await roundsAfter(10)).toBe(1);
    // A write through the store (pollNow) resets it too.
    await roundsAfter(150);
    await poller.pollNow();
    expect(await roundsAfter(10)).toBe(1);
  });
});
