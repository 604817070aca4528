import { describe, expect, it } from "vitest";
import { EmbeddedStore } from "../../../src/context/embedded/embedded-store.js";
import { StoreClosedError } from "../../../src/context/errors/store-closed-error.js";
import { PostgresConnectionError } from "../../../src/context/postgres/errors/postgres-connection-error.js";
import { PostgresStore } from "../../../src/context/postgres/postgres-store.js";
import { closedPort } from "../../support/closed-port.js";
import { postgresSkipReason, usePostgres } from "./use-postgres.js";

const skip = postgresSkipReason("postgres-store-ranking.e2e.test.ts") !== undefined;

function note(content: string) {
  return { subjectId: "run", source: "agent-a", type: "implementation_note", payload: { content } };
}

const everything = { maxTokens: 128_000 };

describe.skipIf(skip)("PostgresStore getContext ranking", () => {
  const postgres = usePostgres(skip);
  const open = async () => new PostgresStore({ url: await postgres.database() });

  async function contentsFor(store: PostgresStore, task: string): Promise<Set<string>> {
    const bundle = await store.getContext("run", task, everything);
    return new Set(bundle.facts.map((memory) => memory.content));
  }

  it("offers the 40 best full-text matches by bm25, even old ones, not the 40 newest", async () => {
    const store = await open();
    try {
      // Oldest: the best match (the word three times). Then 4 long, weak matches, then 40 short
      // ones; with 45 matches only the best 40 (by bm25) join the 40 newest memories.
      const best = "queue queue queue";
      const weak = [1, 2, 3, 4].map(
        (n) => `queue weak ${n} alpha beta gamma delta epsilon zeta eta theta iota kappa lambda`,
      );
      const short = Array.from({ length: 40 }, (_, n) => `queue short x${n}`);
      await store.createEpisodesBatch([best, ...weak, ...short].map(note));
      await store.compileMemories("run");
      const offered = await contentsFor(store, "queue");
      expect(offered.has(best)).toBe(true);
      for (const content of weak) expect(offered.has(content)).toBe(false);
      expect(offered.size).toBe(41);
    } finally {
      await store.close();
    }
  });

  it("breaks bm25 ties newest first when more than 40 match", async () => {
    const store = await open();
    try {
      // 45 equal matches, then 40 newer non-matching memories that fill the "newest" candidates.
      const matches = Array.from({ length: 45 }, (_, n) => `queue item x${n}`);
      const others = Array.from({ length: 40 }, (_, n) => `retry x${n}`);
      await store.createEpisodesBatch([...matches, ...others].map(note));
      await store.compileMemories("run");
      const offered = await contentsFor(store, "queue");
      expect(matches.filter((content) => offered.has(content))).toEqual(matches.slice(5));
    } finally {
      await store.close();
    }
  });

  it("ranks an older, stronger bm25 match above a newer, weaker one, as the embedded store does", async () => {
    const store = await open();
    const embedded = new EmbeddedStore({ path: ":memory:" });
    try {
      // Both contain the task's one word (same overlap) and are nearly as recent: bm25 decides.
      const strong = "queue queue queue";
      const weak = "queue alpha beta gamma delta epsilon zeta eta theta iota kappa lambda";
      const older = Array.from({ length: 18 }, (_, n) => `retry x${n}`);
      for (const target of [store, embedded]) {
        await target.createEpisodesBatch([...older, strong, weak].map(note));
        await target.compileMemories("run");
      }
      const order = async (target: PostgresStore | EmbeddedStore) =>
        (await target.getContext("run", "queue", everything)).facts.map((memory) => memory.content);
      const onPostgres = await order(store);
      expect(onPostgres.slice(0, 2)).toEqual([strong, weak]);
      expect(onPostgres).toEqual(await order(embedded));
    } finally {
      await store.close();
      await embedded.close();
    }
  });

  it("refuses reads once closed", async () => {
    const store = await open();
    await store.getContext("run", "queue");
    await store.close();
    const error = await store.getContext("run", "queue").catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(StoreClosedError);
  });
});

describe("PostgresStore getContext without a server", () => {
  it("rejects with an error named PostgresConnectionError", async () => {
    const store = new PostgresStore({
      url: `postgres://agent@127.0.0.1:${await closedPort()}/shared`,
    });
    try {
      const error = await store.getContext("run", "queue").catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(PostgresConnectionError);
      expect((error as Error).name).toBe("PostgresConnectionError");
      expect(String(error)).toMatch(
        /^PostgresConnectionError: Cannot use the Postgres database at /,
      );
    } finally {
      await store.close();
    }
  });
});
