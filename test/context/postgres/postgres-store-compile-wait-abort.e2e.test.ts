import pg from "pg";
import { afterEach, describe, expect, it } from "vitest";
import { PostgresStore } from "../../../src/context/postgres/postgres-store.js";
import { backendCount, postgresSkipReason, usePostgres } from "./use-postgres.js";

const skip = postgresSkipReason("postgres-store-compile-wait-abort.e2e.test.ts") !== undefined;

describe.skipIf(skip)("PostgresStore compileMemoriesWait aborted during a status read", () => {
  const postgres = usePostgres(skip);
  const opened: Array<{ close(): Promise<void> }> = [];
  afterEach(async () => {
    for (const item of opened.splice(0).reverse()) await item.close();
  });

  async function connect(url: string): Promise<pg.Client> {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    opened.push({ close: () => client.end() });
    return client;
  }

  /** Backends of this database waiting on a lock while running a statement that starts with `sql`. */
  async function lockWaiters(watcher: pg.Client, sql: string): Promise<number> {
    return backendCount(watcher, "wait_event_type = 'Lock' AND starts_with(query, $1)", [sql]);
  }

  async function untilWaiting(watcher: pg.Client, sql: string, count: number): Promise<void> {
    await expect.poll(() => lockWaiters(watcher, sql), { timeout: 10_000 }).toBe(count);
  }

  // The buggy wait missed an abort that came during the status read and slept for the job
  // (held here for good) or the ten-minute timeout: this test would hang until its 15 s run out.
  it("rejects with the signal's reason when aborted while the status read waits", async () => {
    const url = await postgres.database();
    const store = new PostgresStore({ url });
    opened.push(store);
    await store.createEpisode({
      subjectId: "run",
      source: "architect",
      type: "architectural_decision",
      payload: { content: "Use RS256", target: "auth" },
    });
    const watcher = await connect(url);

    // The subject's compile lock (an uncommitted compile_state row): the job stays running.
    const compileLock = await connect(url);
    await compileLock.query("BEGIN");
    await compileLock.query(
      "INSERT INTO compile_state (tenant_key, subject_id) VALUES ('', 'run')",
    );

    // `first` holds compile_jobs, so the job's INSERT waits; `second` queues for the table
    // behind that INSERT. When `first` lets go, Postgres grants the waiters in queue order: the
    // INSERT runs, then `second` holds the table, and the first status read waits for it.
    const first = await connect(url);
    await first.query("BEGIN; LOCK TABLE compile_jobs IN ACCESS EXCLUSIVE MODE");
    const controller = new AbortController();
    const outcome = store
      .compileMemoriesWait("run", {
        signal: controller.signal,
        timeoutMs: 600_000,
        pollIntervalMs: 600_000,
      })
      .catch((caught: unknown) => caught);
    await untilWaiting(watcher, "INSERT INTO compile_jobs", 1);
    const second = await connect(url);
    await second.query("BEGIN");
    const secondLocked = second.query("LOCK TABLE compile_jobs IN ACCESS EXCLUSIVE MODE");
    await untilWaiting(watcher, "LOCK TABLE compile_jobs", 1);
    await first.query("COMMIT");
    await secondLocked;
    await untilWaiting(watcher, "SELECT job_id", 1);

    const reason = new Error("user cancelled");
    controller.abort(reason);
    await second.query("COMMIT");
    expect(await outcome).toBe(reason);
  }, 15_000);
});
