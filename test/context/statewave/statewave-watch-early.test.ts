import { describe, expect, it } from "vitest";
import type { Episode, StoreChange, Timeline } from "../../../src/context/context-store.js";
import { EmbeddedStore } from "../../../src/context/embedded/embedded-store.js";
import { StatewaveStore } from "../../../src/context/statewave/statewave-store.js";
import { TimelineWatch } from "../../../src/context/statewave/statewave-watch.js";
import { startServer } from "../../../src/server/listen.js";
import { waitFor } from "../../support/wait-for.js";

function episode(id: string, createdAt: string): Episode {
  return {
    id,
    subjectId: "s",
    source: "w",
    type: "note",
    payload: {},
    metadata: {},
    provenance: {},
    sessionId: null,
    createdAt,
  } as unknown as Episode;
}

describe("TimelineWatch before its baseline answered", () => {
  it("delivers what was written after subscribe() and is already in the baseline, not what was before", async () => {
    let answer: (timeline: Timeline) => void = () => undefined;
    const baseline = new Promise<Timeline>((resolve) => {
      answer = resolve;
    });
    const watch = new TimelineWatch({
      subjectId: "s",
      fetchPage: () => baseline,
      pollIntervalMs: 60_000,
      now: () => Date.parse("2026-01-01T00:00:10.000Z"),
    });
    const seen: string[] = [];
    watch.subscribe((change: StoreChange) => {
      if (change.type === "episode") seen.push(change.episode.id);
    }, {});
    answer({
      subjectId: "s",
      episodes: [
        episode("before", "2026-01-01T00:00:09.999Z"),
        episode("at", "2026-01-01T00:00:10.000Z"),
        episode("after", "2026-01-01T00:00:11.000Z"),
      ],
      memories: [],
    });
    await watch.ready;
    await Promise.resolve();
    expect(seen).toStrictEqual(["at", "after"]);
    watch.close();
  });
});

describe("StatewaveStore.watch against serve", () => {
  it.each([1, 2, 3])(
    "delivers 5/5 episodes written right after watch() returns (run %i)",
    async () => {
      const embedded = new EmbeddedStore({ path: ":memory:" });
      const server = await startServer({ store: embedded, port: 0, closeStore: false });
      const client = new StatewaveStore({ baseUrl: server.url, pollIntervalMs: 50 });
      try {
        await embedded.createEpisode({
          subjectId: "s",
          source: "w",
          type: "note",
          payload: { n: 0 },
        });
        // Times are milliseconds: a write in the very millisecond of the call counts as after it.
        await new Promise((resolve) => setTimeout(resolve, 5));
        const seen: number[] = [];
        const subscription = client.watch("s", (change) => {
          if (change.type === "episode") seen.push(Number(change.episode.payload.n));
        });
        for (let n = 1; n <= 5; n += 1) {
          await embedded.createEpisode({
            subjectId: "s",
            source: "w",
            type: "note",
            payload: { n },
          });
        }
        for (let attempt = 0; attempt < 200 && seen.length < 5; attempt += 1) {
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
        await new Promise((resolve) => setTimeout(resolve, 150));
        expect(seen).toStrictEqual([1, 2, 3, 4, 5]);
        subscription.close();
      } finally {
        await client.close();
        await server.close();
        await embedded.close();
      }
    },
  );
});

describe("StatewaveStore.watch with replay, when the history is also 'written since the call'", () => {
  it("delivers each existing episode once (the replay and the by-time delivery do not add up)", async () => {
    // The server's clock runs ahead of ours: every episode it holds looks written after watch().
    const embedded = new EmbeddedStore({ path: ":memory:", now: () => new Date("2100-01-01") });
    const server = await startServer({ store: embedded, port: 0, closeStore: false });
    const client = new StatewaveStore({ baseUrl: server.url, pollIntervalMs: 20 });
    try {
      const first = await embedded.createEpisode({
        subjectId: "r",
        source: "w",
        type: "note",
        payload: {},
      });
      const second = await embedded.createEpisode({
        subjectId: "r",
        source: "w",
        type: "note",
        payload: {},
      });
      const seen: string[] = [];
      const subscription = client.watch(
        "r",
        (change) => {
          if (change.type === "episode") seen.push(change.episode.id);
        },
        { replay: true },
      );
      const third = await embedded.createEpisode({
        subjectId: "r",
        source: "w",
        type: "note",
        payload: {},
      });
      await waitFor(() => expect(seen).toContain(third.id));
      // A few more polls: a duplicate would have arrived by now.
      await new Promise((resolve) => setTimeout(resolve, 100));
      subscription.close();
      expect(seen).toStrictEqual([first.id, second.id, third.id]);
    } finally {
      await client.close();
      await server.close();
      await embedded.close();
    }
  });
});
