import { afterEach, describe, expect, it } from "vitest";
import type { StoreChange } from "../../../src/context/context-store.js";
import { PostgresStore } from "../../../src/context/postgres/postgres-store.js";
import { decisionEpisode } from "../../support/fixtures/decision-episode.js";
import { postgresSkipReason, usePostgres } from "./use-postgres.js";

const skip = postgresSkipReason("postgres-store-compile-order.e2e.test.ts") !== undefined;

const decision = decisionEpisode;

describe.skipIf(skip)("PostgresStore compile: order of changes and large compiles", () => {
  const postgres = usePostgres(skip);
  const opened: PostgresStore[] = [];
  afterEach(async () => {
    for (const store of opened.splice(0)) await store.close();
  });

  async function openStore(): Promise<PostgresStore> {
    const store = new PostgresStore({ url: await postgres.database() });
    opened.push(store);
    return store;
  }

  /** The memory changes a replaying watcher sees, as "content:status", once `count` arrived. */
  async function replayedMemories(store: PostgresStore, count: number): Promise<string[]> {
    const changes: StoreChange[] = [];
    const subscription = store.watch("run", (change) => changes.push(change), { replay: true });
    try {
      const memories = () =>
        changes.flatMap((change) =>
          change.type === "memory" ? [`${change.memory.content}:${change.memory.status}`] : [],
        );
      await expect.poll(() => memories().length, { timeout: 10_000 }).toBe(count);
      return memories();
    } finally {
      subscription.close();
    }
  }

  it("a memory superseded by a later one of the same compile is a change at that supersede, after the ones made between", async () => {
    const store = await openStore();
    await store.createEpisodesBatch([
      decision("Use Kafka", "bus"),
      decision("Use HS256", "auth"),
      decision("Use Postgres", "db"),
      decision("Use RS256", "auth"),
    ]);
    const result = await store.compileMemories("run");
    expect(result.memories.map((memory) => [memory.content, memory.status])).toEqual([
      ["Use Kafka", "active"],
      ["Use HS256", "superseded"],
      ["Use Postgres", "active"],
      ["Use RS256", "active"],
    ]);
    // Changes come in the order they happened: the HS256 memory last changed when RS256 replaced it.
    expect(await replayedMemories(store, 4)).toEqual([
      "Use Kafka:active",
      "Use Postgres:active",
      "Use HS256:superseded",
      "Use RS256:active",
    ]);
  });

  it("a compile of more episodes than one page and one insert chunk compiles them all", async () => {
    const store = await openStore();
    const episodes = Array.from({ length: 1001 }, (_, index) => ({
      subjectId: "run",
      source: "agent",
      type: "observation",
      payload: { content: `note ${index}` },
    }));
    // Batches hold at most 100 episodes.
    for (let start = 0; start < episodes.length; start += 100) {
      await store.createEpisodesBatch(episodes.slice(start, start + 100));
    }
    const result = await store.compileMemories("run");
    expect(result.memoriesCreated).toBe(1001);
    expect(result.memories.at(-1)?.content).toBe("note 1000");
    // Nothing is left for a second compile.
    expect((await store.compileMemories("run")).memoriesCreated).toBe(0);
  }, 60_000);

  it("a completed compile job gives the memories it created, as stored", async () => {
    const store = await openStore();
    await store.createEpisodesBatch([decision("Use HS256", "auth"), decision("Use RS256", "auth")]);
    const job = await store.compileMemoriesWait("run", { pollIntervalMs: 10 });
    const status = await store.getCompileStatus(job.jobId);
    expect(status.memories?.map((memory) => [memory.content, memory.status])).toEqual([
      ["Use HS256", "superseded"],
      ["Use RS256", "active"],
    ]);
    expect(status.memories).toEqual((await store.getTimeline("run")).memories);
  });
});
