import { afterEach, describe, expect, it } from "vitest";
import type { Episode } from "../../../src/context/context-store.js";
import { PostgresStore } from "../../../src/context/postgres/postgres-store.js";
import { postgresSkipReason, usePostgres } from "./use-postgres.js";

const skip = postgresSkipReason("postgres-store-timeline-order.e2e.test.ts") !== undefined;

function note(content: string) {
  return { subjectId: "run", source: "agent", type: "implementation_note", payload: { content } };
}

/** Indexes where created_at goes backwards along the timeline (empty: the order is total). */
function backwards(episodes: readonly Episode[]): string[] {
  const found: string[] = [];
  for (let index = 1; index < episodes.length; index += 1) {
    const before = episodes[index - 1]?.createdAt ?? "";
    const here = episodes[index]?.createdAt ?? "";
    if (here < before) found.push(`${before} > ${here} at index ${index}`);
  }
  return found;
}

describe.skipIf(skip)("PostgresStore timeline: created_at follows the order", () => {
  const postgres = usePostgres(skip);
  const opened: PostgresStore[] = [];
  afterEach(async () => {
    for (const store of opened.splice(0)) await store.close();
  });

  async function open(now?: () => Date): Promise<PostgresStore> {
    const store = new PostgresStore({ url: await postgres.database(), ...(now ? { now } : {}) });
    opened.push(store);
    return store;
  }

  it("after 50 parallel writes to one subject, created_at never goes backwards", async () => {
    const store = await open();
    const written = await Promise.all(
      Array.from({ length: 50 }, (_, index) => store.createEpisode(note(`n${index}`))),
    );
    const { episodes } = await store.getTimeline("run", { limit: 100 });
    expect(episodes).toHaveLength(50);
    expect(backwards(episodes)).toEqual([]);
    // Each create answered with the created_at it was stored with.
    const stored = new Map(episodes.map((episode) => [episode.id, episode.createdAt]));
    for (const episode of written) expect(stored.get(episode.id)).toBe(episode.createdAt);
  });

  it("holds against a clock that goes backwards, for single creates and batches alike", async () => {
    // Each call of the clock is 10 ms earlier than the last: the worst case of the race above.
    let tick = 0;
    const store = await open(() => new Date(Date.UTC(2026, 0, 1) - 10 * tick++));
    const first = await store.createEpisode(note("first"));
    await store.createEpisode(note("second"));
    await store.createEpisodesBatch([note("b1"), note("b2")]);
    const last = await store.createEpisode(note("last"));
    const { episodes } = await store.getTimeline("run");
    expect(episodes.map((episode) => episode.payload.content)).toEqual([
      "first",
      "second",
      "b1",
      "b2",
      "last",
    ]);
    expect(backwards(episodes)).toEqual([]);
    expect(last.createdAt).toBe(first.createdAt);
  });
});
