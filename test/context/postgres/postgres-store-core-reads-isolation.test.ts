import { randomUUID } from "node:crypto";
import pg from "pg";
import { describe, expect, it, vi } from "vitest";
import { PostgresStore } from "../../../src/context/postgres/postgres-store.js";
import { postgresSkipReason, usePostgres } from "./use-postgres.js";

const skip = postgresSkipReason("postgres-store-core-reads-isolation.test.ts") !== undefined;

function note(content: string, subjectId = "run") {
  return { subjectId, source: "agent-a", type: "implementation_note", payload: { content } };
}

/** A second connection to the store's database: takes table locks to stop the store mid-way. */
async function adminOf(url: string): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  return client;
}

/**
 * Backends of this database waiting on a lock (a table lock we hold, or a row lock). The
 * snapshot clear matters: in a transaction, pg_stat_activity otherwise answers from its first read.
 */
async function lockWaiters(admin: pg.Client): Promise<number> {
  await admin.query("SELECT pg_stat_clear_snapshot()");
  const { rows } = await admin.query<{ waiting: number }>(
    `SELECT count(*)::int AS waiting FROM pg_stat_activity
     WHERE datname = current_database() AND wait_event_type = 'Lock'`,
  );
  return rows[0]?.waiting ?? 0;
}

async function untilWaiting(admin: pg.Client, count: number): Promise<void> {
  await vi.waitFor(async () => expect(await lockWaiters(admin)).toBe(count), {
    timeout: 10_000,
    interval: 20,
  });
}

describe.skipIf(skip)("PostgresStore reads and deletes under concurrent writers", () => {
  const postgres = usePostgres(skip);

  async function withStore(
    test: (store: PostgresStore, admin: pg.Client, url: string) => Promise<void>,
  ): Promise<void> {
    const url = await postgres.database();
    const store = new PostgresStore({ url });
    const admin = await adminOf(url);
    try {
      await test(store, admin, url);
    } finally {
      // Our connection first: a failed test must not leave the store waiting for our locks.
      await admin.end();
      await store.close();
    }
  }

  it("getTimeline reads its episodes and memories from one snapshot", async () => {
    await withStore(async (store, admin) => {
      await store.createEpisodesBatch([note("Use a queue"), note("Retry twice")]);
      await store.compileMemories("run");
      // The memories query waits for our lock; the episodes one has already read.
      await admin.query("BEGIN; LOCK TABLE memories IN ACCESS EXCLUSIVE MODE");
      const timeline = store.getTimeline("run");
      await untilWaiting(admin, 1);
      await admin.query("DELETE FROM memories; COMMIT");
      const read = await timeline;
      expect(read.episodes).toHaveLength(2);
      expect(read.memories).toHaveLength(2);
      expect((await store.getTimeline("run")).memories).toEqual([]);
    });
  });

  it("getContext reads its memories and episodes from one snapshot", async () => {
    await withStore(async (store, admin) => {
      await store.createEpisode(note("Use a queue"));
      await store.compileMemories("run");
      const pending = await store.createEpisode(note("Queue retries twice"));
      // The episodes query (the last) waits for our lock; the memory queries have read.
      await admin.query("BEGIN; LOCK TABLE episodes IN ACCESS EXCLUSIVE MODE");
      const bundle = store.getContext("run", "queue");
      await untilWaiting(admin, 1);
      await admin.query("DELETE FROM episodes; COMMIT");
      const read = await bundle;
      expect(read.facts).toHaveLength(1);
      expect(read.episodes).toEqual([pending]);
    });
  });

  it("deleteSubject deletes nothing when it fails part-way", async () => {
    await withStore(async (store, admin) => {
      await store.createEpisodesBatch([note("Use a queue"), note("Retry twice")]);
      await store.compileMemories("run");
      // Stop it at the term statistics (after the memories and episodes) and cancel it there.
      await admin.query("BEGIN; LOCK TABLE term_stats IN ACCESS EXCLUSIVE MODE");
      const deletion = store.deleteSubject("run").catch((error: unknown) => error);
      await untilWaiting(admin, 1);
      await admin.query(
        `SELECT pg_cancel_backend(pid) FROM pg_stat_activity
         WHERE datname = current_database() AND wait_event_type = 'Lock'`,
      );
      expect(await deletion).toBeInstanceOf(Error);
      await admin.query("ROLLBACK");
      const timeline = await store.getTimeline("run");
      expect(timeline.episodes).toHaveLength(2);
      expect(timeline.memories).toHaveLength(2);
    });
  });

  it("an episode written while deleteSubject runs waits for it and survives it", async () => {
    await withStore(async (store, admin) => {
      await store.createEpisodesBatch([note("Use a queue"), note("Retry twice")]);
      await admin.query("BEGIN; LOCK TABLE memories IN ACCESS EXCLUSIVE MODE");
      const deletion = store.deleteSubject("run");
      await untilWaiting(admin, 1);
      let written = false;
      const late = store.createEpisode(note("Start over")).then((episode) => {
        written = true;
        return episode;
      });
      // Either it waits for the delete's lock on the subject, or (unlocked) it is written now.
      await vi.waitFor(
        async () => {
          if (!written) expect(await lockWaiters(admin)).toBe(2);
        },
        { timeout: 10_000, interval: 20 },
      );
      await admin.query("COMMIT");
      expect((await deletion).episodesDeleted).toBe(2);
      const episode = await late;
      expect((await store.getTimeline("run")).episodes).toEqual([episode]);
    });
  });

  it("a compile started while deleteSubject runs waits for it and compiles nothing deleted", async () => {
    await withStore(async (store, admin) => {
      await store.createEpisode(note("Use a queue"));
      await store.compileMemories("run");
      await store.createEpisodesBatch([note("Retry twice"), note("Log failures")]);
      await admin.query("BEGIN; LOCK TABLE memories IN ACCESS EXCLUSIVE MODE");
      const deletion = store.deleteSubject("run");
      await untilWaiting(admin, 1);
      // It waits either for the delete's lock on the compile state, or (unlocked) for ours.
      const compile = store.compileMemories("run");
      await untilWaiting(admin, 2);
      await admin.query("COMMIT");
      expect(await deletion).toEqual({ subjectId: "run", episodesDeleted: 3, memoriesDeleted: 1 });
      expect((await compile).memories).toEqual([]);
      expect(await store.getTimeline("run")).toEqual({
        subjectId: "run",
        episodes: [],
        memories: [],
        nextCursor: null,
        episodesHasMore: false,
        memoriesHasMore: false,
      });
    });
  });

  it("a deleted subject written again ranks its context as a new subject does", async () => {
    await withStore(async (store) => {
      // Five documents with "alpha" before the delete: kept, they would make it a common word.
      const before = ["alpha", "alpha one", "alpha two", "alpha three", "alpha four"];
      await store.createEpisodesBatch(before.map((word) => note(`Use ${word}`)));
      await store.compileMemories("run");
      await store.deleteSubject("run");
      // Two matches of equal bm25 while "alpha" is as rare as "beta"; many older memories keep
      // the recency between them small next to bm25's share of the score.
      const older = [
        "red",
        "green",
        "blue",
        "cyan",
        "pink",
        "gold",
        "gray",
        "navy",
        "teal",
        "plum",
      ];
      const rewritten = [
        ...older.map((word) => `Use ${word}`),
        "Use alpha beta beta",
        "Use alpha alpha beta",
      ];
      for (const subjectId of ["run", "fresh"]) {
        await store.createEpisodesBatch(rewritten.map((content) => note(content, subjectId)));
        await store.compileMemories(subjectId);
      }
      const ranked = async (subjectId: string) =>
        (await store.getContext(subjectId, "alpha beta")).facts.map((memory) => memory.content);
      expect(await ranked("run")).toEqual(await ranked("fresh"));
    });
  });

  it("close() ends every connection of its pool", async () => {
    const url = await postgres.database();
    const store = new PostgresStore({ url });
    const admin = await adminOf(url);
    try {
      await Promise.all([store.listSubjects(), store.getTimeline("run"), store.getTimeline("b")]);
      const others = async () => {
        const { rows } = await admin.query<{ count: number }>(
          `SELECT count(*)::int AS count FROM pg_stat_activity
           WHERE datname = current_database() AND pid <> pg_backend_pid()`,
        );
        return rows[0]?.count;
      };
      expect(await others()).toBeGreaterThan(0);
      await store.close();
      // Idle connections would otherwise stay for the pool's idle timeout (10 s).
      await vi.waitFor(async () => expect(await others()).toBe(0), { timeout: 3000, interval: 20 });
    } finally {
      // Our connection first: a failed test must not leave the store waiting for our locks.
      await admin.end();
      await store.close();
    }
  });

  it("watch reports a LISTEN connection the server refuses to its onError", async () => {
    const url = await postgres.database();
    const admin = await adminOf(url);
    const role = `r_${randomUUID().replaceAll("-", "").slice(0, 16)}`;
    const database = new URL(url).pathname.slice(1);
    // One connection for the role: the pool's; the LISTEN connection is refused.
    await admin.query(`CREATE ROLE ${role} LOGIN CONNECTION LIMIT 1`);
    await admin.query(`ALTER DATABASE ${database} OWNER TO ${role}`);
    const limited = new URL(url);
    limited.username = role;
    limited.password = "";
    const store = new PostgresStore({
      url: limited.toString(),
      maxConnections: 1,
      reconnectDelayMs: 60_000,
    });
    try {
      const errors: unknown[] = [];
      const subscription = store.watch("run", () => {}, {
        onError: (error) => errors.push(error),
      });
      await vi.waitFor(() => expect(errors).toHaveLength(1), { timeout: 10_000 });
      subscription.close();
      expect(String((errors[0] as Error).message)).toMatch(/too many connections/);
    } finally {
      await store.close();
      await admin.query(`REASSIGN OWNED BY ${role} TO CURRENT_USER`);
      await admin.query(`DROP OWNED BY ${role}`);
      await admin.query(`DROP ROLE ${role}`);
      await admin.end();
    }
  });
});
