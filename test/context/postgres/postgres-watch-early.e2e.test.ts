import { describe, expect, it } from "vitest";
import type { StoreChange } from "../../../src/context/context-store.js";
import { PostgresStore } from "../../../src/context/postgres/postgres-store.js";
import { postgresSkipReason, usePostgres } from "./use-postgres.js";

const skip = postgresSkipReason("postgres-watch-early.e2e.test.ts") !== undefined;

async function waitUntil(condition: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`not within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe.skipIf(skip)("PostgresStore.watch before its first connection", () => {
  const postgres = usePostgres(skip);

  it.each([1, 2, 3, 4, 5])(
    "delivers 5/5 episodes another replica writes right after watch() returns (run %i)",
    async () => {
      const url = await postgres.database();
      const writer = new PostgresStore({ url, pollIntervalMs: 200 });
      await writer.connect();
      // Something written before the watch starts, which it must not deliver.
      await writer.createEpisode({ subjectId: "s", source: "w", type: "note", payload: { n: 0 } });
      const watcher = new PostgresStore({ url, pollIntervalMs: 200 });
      const seen: number[] = [];
      try {
        const subscription = watcher.watch("s", (change: StoreChange) => {
          if (change.type === "episode") seen.push(Number(change.episode.payload.n));
        });
        // The watcher has no connection yet: these commit before its cursor could be read.
        for (let n = 1; n <= 5; n += 1) {
          await writer.createEpisode({ subjectId: "s", source: "w", type: "note", payload: { n } });
        }
        await waitUntil(() => seen.length >= 5, 10_000);
        // Give a wrong extra delivery the chance to show.
        await new Promise((resolve) => setTimeout(resolve, 300));
        expect(seen).toStrictEqual([1, 2, 3, 4, 5]);
        subscription.close();
      } finally {
        await watcher.close();
        await writer.close();
      }
    },
    30_000,
  );
});
