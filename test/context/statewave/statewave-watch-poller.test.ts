import { afterEach, describe, expect, it, vi } from "vitest";
import type { Episode, Memory, StoreChange, Timeline } from "../../../src/context/context-store.js";
import { TimelineWatch } from "../../../src/context/statewave/statewave-watch.js";
import { deferred } from "../../support/deferred.js";

/**
 * `TimelineWatch` over a timeline served by the test: what subscribers receive, which pages it
 * reads, and that a closed poller reads, schedules and reports nothing more.
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

function memory(index: number, changes: Partial<Memory> = {}): Memory {
  const stamp = new Date(Date.UTC(2026, 0, 1, 0, 0, index)).toISOString();
  return {
    id: `memory-${index}`,
    subjectId: "run",
    kind: "episode_summary",
    content: `note ${index}`,
    summary: `note ${index}`,
    confidence: 1,
    validFrom: stamp,
    validTo: null,
    sourceEpisodeIds: [`episode-${index}`],
    metadata: {},
    status: "active",
    createdAt: stamp,
    updatedAt: stamp,
    ...changes,
  };
}

function range<T>(count: number, make: (index: number) => T): T[] {
  return Array.from({ length: count }, (_, index) => make(index));
}

/** A subject's timeline that honours `limit`/`offset`, and the pages read from it. */
function pagedTimeline(initial: { episodes?: Episode[]; memories?: Memory[] } = {}) {
  const state = { episodes: initial.episodes ?? [], memories: initial.memories ?? [] };
  const reads: number[] = [];
  const fetchPage = async (offset: number, limit: number): Promise<Timeline> => {
    reads.push(offset);
    return {
      subjectId: "run",
      episodes: state.episodes.slice(offset, offset + limit),
      memories: state.memories.slice(offset, offset + limit),
    };
  };
  return { state, reads, fetchPage };
}

/** What a subscriber received, as `episode-n` / `memory-n: status`. */
function labels(changes: readonly StoreChange[]): string[] {
  return changes.map((change) =>
    change.type === "episode" ? change.episode.id : `${change.memory.id}: ${change.memory.status}`,
  );
}

const pollers: TimelineWatch[] = [];
afterEach(() => {
  for (const poller of pollers.splice(0)) poller.close();
  vi.useRealTimers();
});

function startPoller(
  fetchPage: ConstructorParameters<typeof TimelineWatch>[0]["fetchPage"],
  options: Partial<ConstructorParameters<typeof TimelineWatch>[0]> = {},
): TimelineWatch {
  // A long interval: rounds run when the test asks (pollNow), not on a timer.
  const poller = new TimelineWatch({
    subjectId: "run",
    fetchPage,
    pollIntervalMs: 60_000,
    ...options,
  });
  pollers.push(poller);
  return poller;
}

/** Subscribes and waits until the subscriber has joined (after the baseline, replay delivered). */
async function join(
  poller: TimelineWatch,
  options: Parameters<TimelineWatch["subscribe"]>[1] = {},
): Promise<StoreChange[]> {
  const changes: StoreChange[] = [];
  const joined = deferred();
  poller.subscribe((change) => changes.push(change), {
    ...options,
    onHistory: (history) => {
      options.onHistory?.(history);
      joined.resolve();
    },
  });
  await joined.promise;
  return changes;
}

describe("TimelineWatch", () => {
  describe("paging", () => {
    it("reads every full page of episodes and memories, and only new episodes afterwards", async () => {
      const timeline = pagedTimeline({
        episodes: range(1500, episode),
        memories: range(1500, (index) => memory(index)),
      });
      const poller = startPoller(timeline.fetchPage);
      const changes = await join(poller, { replay: true });
      expect(changes.filter((change) => change.type === "episode")).toHaveLength(1500);
      expect(changes.filter((change) => change.type === "memory")).toHaveLength(1500);
      expect(timeline.reads).toEqual([0, 1000, 0, 1000]);

      timeline.reads.length = 0;
      timeline.state.episodes.push(episode(1500));
      await poller.pollNow();
      expect(timeline.reads).toEqual([1500, 0, 1000]);
      expect(labels(changes.slice(3000))).toEqual(["episode-1500"]);
    });

    it("reads episodes from the start again after a reset, delivering none twice", async () => {
      const timeline = pagedTimeline({ episodes: range(3, episode) });
      const poller = startPoller(timeline.fetchPage);
      const changes = await join(poller);
      poller.reset();
      timeline.reads.length = 0;
      // The subject was deleted and written again: its new log starts at offset 0.
      timeline.state.episodes = [episode(10)];
      await poller.pollNow();
      expect(timeline.reads).toEqual([0, 0]);
      expect(labels(changes)).toEqual(["episode-10"]);
    });
  });

  describe("memory changes", () => {
    const superseded = memory(0, { status: "superseded", validTo: "2026-02-01T00:00:00.000Z" });
    it.each([
      ["status", { status: "deleted" }],
      ["valid_to alone", { validTo: "2026-03-01T00:00:00.000Z" }],
      ["updated_at alone", { updatedAt: "2026-03-01T00:00:00.000Z" }],
    ] as const)("delivers a memory again, once, when its %s changes", async (_, change) => {
      const timeline = pagedTimeline({ memories: [superseded] });
      const poller = startPoller(timeline.fetchPage);
      const changes = await join(poller);
      timeline.state.memories = [{ ...superseded, ...change }];
      await poller.pollNow();
      await poller.pollNow();
      expect(changes).toEqual([{ type: "memory", memory: { ...superseded, ...change } }]);
    });

    it("delivers each change once when the timeline is read whole", async () => {
      const whole = { episodes: [episode(0)], memories: [memory(0)] };
      const poller = startPoller(pagedTimeline().fetchPage, { readAll: async () => whole });
      const changes = await join(poller, { replay: true });
      await poller.pollNow();
      whole.memories = [memory(0, { status: "superseded", validTo: "2026-02-01T00:00:00.000Z" })];
      whole.episodes = [episode(0), episode(1)];
      await poller.pollNow();
      await poller.pollNow();
      expect(labels(changes)).toEqual([
        "episode-0",
        "memory-0: active",
        "episode-1",
        "memory-0: superseded",
      ]);
    });
  });

  describe("subscribe", () => {
    it("reports an onHistory that throws to onError, and still delivers live changes", async () => {
      const timeline = pagedTimeline({ episodes: [episode(0)] });
      const poller = startPoller(timeline.fetchPage);
      const failure = new Error("history rejected");
      const errors: unknown[] = [];
      const changes: StoreChange[] = [];
      poller.subscribe((change) => changes.push(change), {
        onHistory: () => {
          throw failure;
        },
        onError: (error) => errors.push(error),
      });
      await poller.ready;
      expect(errors).toEqual([failure]);
      timeline.state.episodes.push(episode(1));
      await poller.pollNow();
      expect(labels(changes)).toEqual(["episode-1"]);
    });
    it("delivers nothing to a subscriber removed before the baseline was read", async () => {
      const timeline = pagedTimeline({ episodes: [episode(0)] });
      const poller = startPoller(timeline.fetchPage);
      const changes: StoreChange[] = [];
      const histories: unknown[] = [];
      const unsubscribe = poller.subscribe((change) => changes.push(change), {
        replay: true,
        onHistory: (history) => histories.push(history),
      });
      expect(poller.size).toBe(1);
      unsubscribe();
      expect(poller.size).toBe(0);
      await poller.ready;
      timeline.state.episodes.push(episode(1));
      await poller.pollNow();
      expect({ changes, histories }).toEqual({ changes: [], histories: [] });
    });

    it("counts a subscriber from the moment it subscribes until it is removed", async () => {
      const poller = startPoller(pagedTimeline().fetchPage);
      const unsubscribe = poller.subscribe(() => undefined, {});
      expect(poller.size).toBe(1);
      await poller.ready;
      expect(poller.size).toBe(1);
      unsubscribe();
      expect(poller.size).toBe(0);
    });

    it("replays nothing when closed before the baseline was read", async () => {
      const poller = startPoller(pagedTimeline({ episodes: [episode(0)] }).fetchPage);
      const changes: StoreChange[] = [];
      poller.subscribe((change) => changes.push(change), { replay: true });
      poller.close();
      await poller.ready;
      expect(changes).toEqual([]);
    });
  });

  describe("close", () => {
    it("reads nothing once closed, not even the round asked for just before", async () => {
      const timeline = pagedTimeline({ episodes: [episode(0)] });
      const poller = startPoller(timeline.fetchPage);
      await join(poller);
      timeline.reads.length = 0;
      const queued = poller.pollNow();
      poller.close();
      await queued;
      await poller.pollNow();
      expect(timeline.reads).toEqual([]);
    });

    it("cancels the read in flight without reporting its failure", async () => {
      const timeline = pagedTimeline();
      const inFlight = deferred();
      let hang = false;
      const poller = startPoller((offset, limit, signal) => {
        if (!hang) return timeline.fetchPage(offset, limit);
        inFlight.resolve();
        return new Promise((_, reject) => {
          signal.addEventListener("abort", () => reject(signal.reason));
        });
      });
      const errors: unknown[] = [];
      await join(poller, { onError: (error) => errors.push(error) });
      hang = true;
      const round = poller.pollNow();
      await inFlight.promise;
      poller.close();
      await round;
      expect(errors).toEqual([]);
    });

    it("stops delivering the round in progress when a subscriber closes the poller", async () => {
      const timeline = pagedTimeline();
      const poller = startPoller(timeline.fetchPage);
      const changes: StoreChange[] = [];
      poller.subscribe((change) => {
        changes.push(change);
        poller.close();
      }, {});
      await poller.ready;
      timeline.state.episodes.push(episode(0), episode(1));
      await poller.pollNow();
      expect(labels(changes)).toEqual(["episode-0"]);
    });

    it("polls on its interval until closed, and leaves no timer behind", async () => {
      vi.useFakeTimers();
      const timeline = pagedTimeline();
      const poller = startPoller(timeline.fetchPage, { pollIntervalMs: 10 });
      const changes = await join(poller);
      timeline.state.episodes.push(episode(0));
      await vi.advanceTimersByTimeAsync(10);
      expect(labels(changes)).toEqual(["episode-0"]);
      poller.close();
      expect(vi.getTimerCount()).toBe(0);
      timeline.reads.length = 0;
      await vi.advanceTimersByTimeAsync(100);
      expect(timeline.reads).toEqual([]);
    });

    it("schedules nothing when closed during its first read", async () => {
      vi.useFakeTimers();
      const gate = deferred();
      const poller = startPoller(
        async () => {
          await gate.promise;
          return { subjectId: "run", episodes: [], memories: [] };
        },
        { pollIntervalMs: 10 },
      );
      poller.close();
      gate.resolve();
      await poller.ready;
      expect(vi.getTimerCount()).toBe(0);
    });
  });
});
