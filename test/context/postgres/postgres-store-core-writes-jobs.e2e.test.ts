import { getEventListeners } from "node:events";
import pg from "pg";
import { afterEach, describe, expect, it, vi } from "vitest";
import { CompileJobNotFoundError } from "../../../src/context/errors/compile-job-not-found-error.js";
import { CompileTimeoutError } from "../../../src/context/errors/compile-timeout-error.js";
import { PostgresStore } from "../../../src/context/postgres/postgres-store.js";
import { decisionEpisode } from "../../support/fixtures/decision-episode.js";
import { backendCount, postgresSkipReason, usePostgres } from "./use-postgres.js";

const skip = postgresSkipReason("postgres-store-core-writes-jobs.e2e.test.ts") !== undefined;

const decision = decisionEpisode;

describe.skipIf(skip)("PostgresStore compile jobs", () => {
  const postgres = usePostgres(skip);
  const opened: Array<{ close(): Promise<void> }> = [];
  afterEach(async () => {
    vi.restoreAllMocks();
    for (const item of opened.splice(0).reverse()) await item.close();
  });

  /** A store on a fresh database with two decisions to compile, and a plain connection to it. */
  async function setUp(): Promise<{ store: PostgresStore; admin: pg.Client; url: string }> {
    const url = await postgres.database();
    const store = new PostgresStore({ url });
    opened.push(store);
    await store.createEpisodesBatch([decision("Use RS256", "auth"), decision("Use Kafka", "bus")]);
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    opened.push({ close: () => admin.end() });
    return { store, admin, url };
  }

  /**
   * Holds the subject's compile lock (an uncommitted `compile_state` row) on another connection,
   * so a compile started now waits; the returned function lets it go.
   */
  async function holdCompileLock(url: string): Promise<() => Promise<void>> {
    const holder = new pg.Client({ connectionString: url });
    await holder.connect();
    opened.push({ close: () => holder.end() });
    await holder.query("BEGIN");
    await holder.query("INSERT INTO compile_state (tenant_key, subject_id) VALUES ('', 'run')");
    return async () => {
      await holder.query("COMMIT");
    };
  }

  /** Settles once `count` compiles are waiting for the lock `holdCompileLock` holds. */
  async function compilesWaiting(admin: pg.Client, count: number): Promise<void> {
    await expect
      .poll(() => backendCount(admin, "wait_event_type = 'Lock'"), { timeout: 10_000 })
      .toBe(count);
  }

  it("compileMemoriesWait gives the completed job with the memories it created, as any poll does", async () => {
    const { store } = await setUp();
    const job = await store.compileMemoriesWait("run", { pollIntervalMs: 10 });
    const { memories } = await store.getTimeline("run");
    expect(memories).toHaveLength(2);
    expect(job).toStrictEqual({
      jobId: job.jobId,
      status: "completed",
      subjectId: "run",
      memoriesCreated: 2,
      memories,
    });
    expect(await store.getCompileStatus(job.jobId)).toStrictEqual(job);
  });

  it("reports a job as running, with no result or error, while its compile waits for the subject", async () => {
    const { store, admin, url } = await setUp();
    const release = await holdCompileLock(url);
    const started = await store.compileMemoriesAsync("run");
    await compilesWaiting(admin, 1);
    expect(await store.getCompileStatus(started.jobId)).toStrictEqual({
      jobId: started.jobId,
      status: "running",
      subjectId: "run",
    });
    await release();
    await expect(store.compileMemoriesWait("run")).resolves.toMatchObject({
      status: "completed",
      memoriesCreated: 0,
    });
  });

  it("a compile the database refuses: the job failed with its reason, and nothing was written", async () => {
    const { store, admin } = await setUp();
    // Refuse the compile's last step (moving the subject's compiled mark), after its inserts.
    await admin.query(`CREATE FUNCTION refuse() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN RAISE EXCEPTION 'disk full'; END $$`);
    await admin.query(`CREATE TRIGGER refuse BEFORE UPDATE ON compile_state FOR EACH ROW
      WHEN (NEW.compiled_seq <> OLD.compiled_seq) EXECUTE FUNCTION refuse()`);

    await expect(store.compileMemories("run")).rejects.toThrow(/disk full/);
    expect((await store.getTimeline("run")).memories).toEqual([]);

    const job = await store.compileMemoriesWait("run", { timeoutMs: 5_000 });
    expect(job).toStrictEqual({
      jobId: job.jobId,
      status: "failed",
      subjectId: "run",
      // The SQLSTATE of a trigger's RAISE, never the driver's message (it can quote SQL).
      error: "compile failed: the database failed (SQLSTATE P0001)",
    });
    expect((await store.getTimeline("run")).memories).toEqual([]);

    // A failed job whose reason was never recorded still says it failed.
    await admin.query("UPDATE compile_jobs SET error = NULL WHERE job_id = $1", [job.jobId]);
    expect(await store.getCompileStatus(job.jobId)).toStrictEqual({
      ...job,
      error: "compile failed",
    });
  });

  it.each([
    ["an unknown id", "no-such-job"],
    ["an id with U+0000", "job\u0000id"],
    ["an id that is not a string", 42 as unknown as string],
  ])("getCompileStatus of %s: CompileJobNotFoundError", async (_name, jobId) => {
    const { store } = await setUp();
    await store.compileMemoriesWait("run");
    const error = await store.getCompileStatus(jobId).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(CompileJobNotFoundError);
    expect((error as Error).message).toBe(`Compile job not found: ${String(jobId)}`);
  });

  // A wait that missed its cue would hang until the lock is let go: those tests get 15 s.
  describe("compileMemoriesWait while the compile waits for the subject", () => {
    it("gives up after timeoutMs with CompileTimeoutError naming the job", async () => {
      const { store, admin, url } = await setUp();
      await holdCompileLock(url);
      const error = await store
        .compileMemoriesWait("run", { timeoutMs: 300 })
        .catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(CompileTimeoutError);
      const jobId = (await admin.query("SELECT job_id FROM compile_jobs")).rows[0]?.job_id;
      expect((error as Error).message).toBe(`Compile job ${jobId} did not finish within 300 ms`);
    }, 15_000);

    it("with timeoutMs 0 looks once and gives up, even on a clock that has not moved", async () => {
      const { store, url } = await setUp();
      await holdCompileLock(url);
      vi.spyOn(performance, "now").mockReturnValue(1_000);
      await expect(store.compileMemoriesWait("run", { timeoutMs: 0 })).rejects.toBeInstanceOf(
        CompileTimeoutError,
      );
    }, 15_000);

    it("rejects with the signal's reason as soon as it is aborted", async () => {
      const { store, admin, url } = await setUp();
      await holdCompileLock(url);
      const controller = new AbortController();
      const waiting = store.compileMemoriesWait("run", { signal: controller.signal });
      const outcome = waiting.catch((caught: unknown) => caught);
      await compilesWaiting(admin, 1);
      await expect.poll(() => getEventListeners(controller.signal, "abort").length).toBe(1);
      const reason = new Error("user cancelled");
      controller.abort(reason);
      expect(await outcome).toBe(reason);
    }, 15_000);

    it("leaves no listener on the caller's signal once the job is done", async () => {
      const { store, admin, url } = await setUp();
      const release = await holdCompileLock(url);
      const controller = new AbortController();
      const waiting = store.compileMemoriesWait("run", { signal: controller.signal });
      await compilesWaiting(admin, 1);
      await expect.poll(() => getEventListeners(controller.signal, "abort").length).toBe(1);
      await release();
      await expect(waiting).resolves.toMatchObject({ status: "completed", memoriesCreated: 2 });
      expect(getEventListeners(controller.signal, "abort")).toEqual([]);
    });
  });

  it("concurrent compiles of one subject turn each episode into one memory", async () => {
    const { store, admin, url } = await setUp();
    const release = await holdCompileLock(url);
    const compiles = Promise.all([store.compileMemories("run"), store.compileMemories("run")]);
    await compilesWaiting(admin, 2);
    await release();
    const results = await compiles;
    expect(results.map((result) => result.memoriesCreated).sort()).toEqual([0, 2]);
    expect((await store.getTimeline("run")).memories).toHaveLength(2);
  });
});
