import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { EmbeddedStore } from "../../src/context/embedded/embedded-store.js";
import { StatewaveClient } from "../../src/context/statewave/statewave-client.js";
import { type RunningServer, startServer } from "../../src/server/listen.js";
import { spawnTsChild, waitForExit } from "../support/run-child.js";
import { useTempDir } from "../support/temp-dir.js";

const childScript = "test/server/fixtures/create-episodes-child.ts";
const writers = 8;
const perWriter = 250;

describe("shared-ctx serve under concurrent writers", () => {
  const tempDir = useTempDir("serve-concurrency-");
  let server: RunningServer | undefined;
  afterEach(async () => {
    await server?.close();
  });

  it(`${writers} processes x ${perWriter} createEpisode: every episode once, in one total order`, async () => {
    const store = new EmbeddedStore({ path: join(tempDir(), "store.db") });
    server = await startServer({ store, port: 0 });
    const subjectId = "concurrency";

    const results = await Promise.all(
      Array.from({ length: writers }, (_, index) =>
        waitForExit(
          spawnTsChild(childScript, [server?.url ?? "", subjectId, `w${index}`, String(perWriter)]),
        ),
      ),
    );
    const created = new Map<string, string[]>();
    for (const result of results) {
      expect(result.stderr).toBe("");
      expect(result.code).toBe(0);
      const line = JSON.parse(result.stdout.trim()) as { writer: string; ids: string[] };
      created.set(line.writer, line.ids);
    }

    const client = new StatewaveClient({ baseUrl: server.url });
    const timeline = await client.getTimeline(subjectId, { limit: 10_000 });
    const episodes = timeline.episodes;
    expect(episodes).toHaveLength(writers * perWriter);

    // Exactly once: the timeline's ids are the ids the writers were given, no more, no less.
    const timelineIds = episodes.map((episode) => episode.id);
    expect(new Set(timelineIds).size).toBe(writers * perWriter);
    expect([...timelineIds].sort()).toEqual([...created.values()].flat().sort());

    // One total order that agrees with each writer's own order, and with createdAt.
    const nextSeq = new Map<string, number>();
    let previousTime = Number.NEGATIVE_INFINITY;
    for (const episode of episodes) {
      const { writer, seq } = episode.payload as { writer: string; seq: number };
      expect(seq).toBe(nextSeq.get(writer) ?? 0);
      nextSeq.set(writer, seq + 1);
      const time = Date.parse(episode.createdAt);
      expect(time).toBeGreaterThanOrEqual(previousTime);
      previousTime = time;
    }
    expect([...nextSeq.values()]).toEqual(Array.from({ length: writers }, () => perWriter));

    // Paging with offset walks the same order.
    const pages = [];
    for (let offset = 0; offset < writers * perWriter; offset += 500) {
      pages.push(...(await client.getTimeline(subjectId, { limit: 500, offset })).episodes);
    }
    expect(pages.map((episode) => episode.id)).toEqual(timelineIds);
    await client.close();
  });
});
