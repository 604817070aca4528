import { join } from "node:path";
import Database from "better-sqlite3";
import { describe, expect, it, vi } from "vitest";
import type { CompileJob } from "../../../src/context/context-store.js";
import { CompileEpisodeError } from "../../../src/context/errors/compile-episode-error.js";
import { CompileJobNotFoundError } from "../../../src/context/errors/compile-job-not-found-error.js";
import { CompileTimeoutError } from "../../../src/context/errors/compile-timeout-error.js";
import { embeddedStoresPerTest } from "../../support/embedded-stores.js";
import { useTempDir } from "../../support/temp-dir.js";

const open = embeddedStoresPerTest(() => ({ now: () => new Date("2030-01-01T00:00:00.000Z") }));

function note(content: string) {
  return { subjectId: "run", source: "agent-a", type: "implementation_note", payload: { content } };
}

/** Ids in the order given, then `id-N`: a repeated entry is a generator that repeats itself. */
function idsFrom(ids: string[]): () => string {
  let next = 0;
  return () => ids.shift() ?? `id-${++next}`;
}

/**
 * Makes the database refuse writes the way a failing disk or a lock held too long does: with a
 * SqliteError out of the statement, raised here by a trigger added from another connection.
 */
function refuse(path: string, trigger: string): void {
  const db = new Database(path);
  try {
    db.exec(trigger);
  } finally {
    db.close();
  }
}

/** Lets the job scheduled by `compileMemoriesAsync` (a `setImmediate`) run. */
function nextMacrotask(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

describe("EmbeddedStore compile jobs", () => {
  const tempDir = useTempDir("embedded-store-core-jobs-");

  describe("getCompileStatus", () => {
    it("reports a job not yet run as pending, with no result or error", async () => {
      const store = open();
      await store.createEpisode(note("Use a queue"));
      const job = await store.compileMemoriesAsync("run");
      expect(await store.getCompileStatus(job.jobId)).toStrictEqual({
        jobId: job.jobId,
        status: "pending",
        subjectId: "run",
      });
    });

    it("reports a job as running while its compile runs", async () => {
      let jobId: string | undefined;
      const seen: Array<Promise<CompileJob>> = [];
      // The clock is read inside the compile: what a poller sees at that moment.
      const store = open({
        now: () => {
          if (jobId !== undefined) seen.push(store.getCompileStatus(jobId));
          return new Date("2030-01-01T00:00:00.000Z");
        },
      });
      await store.createEpisode(note("Use a queue"));
      jobId = (await store.compileMemoriesAsync("run")).jobId;
      await nextMacrotask();
      const statuses = (await Promise.all(seen)).map((job) => job.status);
      expect(statuses).toContain("running");
      expect((await store.getCompileStatus(jobId)).status).toBe("completed");
    });

    it("lists the memories a completed job created", async () => {
      const store = open();
      await store.createEpisode(note("Use a queue"));
      await store.createEpisode(note("Retry twice"));
      const job = await store.compileMemoriesWait("run");
      const { memories } = await store.getTimeline("run");
      expect(job).toMatchObject({ status: "completed", memoriesCreated: 2 });
      expect(job.memories).toEqual(memories);
      expect((await store.getCompileStatus(job.jobId)).memories?.map((m) => m.content)).toEqual([
        "Use a queue",
        "Retry twice",
      ]);
    });

    it("does not find a job id that is not a string", async () => {
      const store = open();
      await expect(store.getCompileStatus({} as unknown as string)).rejects.toBeInstanceOf(
        CompileJobNotFoundError,
      );
    });
  });

  describe("a failing compile", () => {
    it("skips the episode whose memory the database refuses and says which", async () => {
      // The generator repeats an id: the second memory breaks the UNIQUE id.
      const store = open({ generateId: idsFrom(["e1", "e2", "m", "m"]) });
      await store.createEpisode(note("Use a queue"));
      await store.createEpisode(note("Retry twice"));
      const error = await store.compileMemories("run").catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(CompileEpisodeError);
      expect(error).toMatchObject({
        skipped: [
          {
            episodeId: "e2",
            type: "implementation_note",
            reason: "the database refused its memory (SQLITE_CONSTRAINT_UNIQUE)",
          },
        ],
        memoriesCreated: 1,
      });
      // Skipped for good: the next compile does not retry it.
      expect(await store.compileMemories("run")).toMatchObject({ memoriesCreated: 0 });
    });

    it("fails the job with the compile's own message", async () => {
      const store = open({ generateId: idsFrom(["e1", "e2", "job", "m", "m"]) });
      await store.createEpisode(note("Use a queue"));
      await store.createEpisode(note("Retry twice"));
      const job = await store.compileMemoriesWait("run", { timeoutMs: 2_000 });
      expect(job).toStrictEqual({
        jobId: "job",
        status: "failed",
        subjectId: "run",
        error: expect.stringMatching(
          /^Could not compile episode e2 \(type "implementation_note"\): the database refused its memory \(SQLITE_CONSTRAINT_UNIQUE\)\. It was skipped/,
        ),
      });
      expect(await store.getCompileStatus("job")).toStrictEqual(job);
    });

    it("fails the job naming an unexpected error's class, never its message", async () => {
      let clockReads = 0;
      let failOnRead = -1;
      const store = open({
        now: () => {
          clockReads += 1;
          if (clockReads === failOnRead) throw new RangeError("secret detail");
          return new Date("2030-01-01T00:00:00.000Z");
        },
      });
      await store.createEpisode(note("Use a queue"));
      // Reads from here: the job's "running" stamp, then the compile's own clock.
      failOnRead = clockReads + 3;
      const job = await store.compileMemoriesWait("run", { timeoutMs: 2_000 });
      expect(job).toMatchObject({
        status: "failed",
        error: "compile failed: an internal error (RangeError)",
      });
    });

    it("fails the job naming the database's error code, never its message", async () => {
      const path = join(tempDir(), "store.db");
      const store = open({ path });
      await store.createEpisode(note("Use a queue"));
      refuse(
        path,
        "CREATE TRIGGER refuse BEFORE INSERT ON compile_marks BEGIN SELECT RAISE(ABORT, 'secret'); END",
      );
      const job = await store.compileMemoriesWait("run", { timeoutMs: 2_000 });
      expect(job).toMatchObject({
        status: "failed",
        error: "compile failed: the database failed (SQLITE_CONSTRAINT_TRIGGER)",
      });
    });

    it("skips nothing when the database rolled the whole compile back", async () => {
      const path = join(tempDir(), "store.db");
      const store = open({ path });
      await store.createEpisode(note("Use a queue"));
      refuse(
        path,
        "CREATE TRIGGER refuse BEFORE INSERT ON memories BEGIN SELECT RAISE(ROLLBACK, 'full'); END",
      );
      const error = await store.compileMemories("run").catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(Database.SqliteError);
      expect(error).not.toBeInstanceOf(CompileEpisodeError);
      refuse(path, "DROP TRIGGER refuse");
      // The episode was not passed over: once the database accepts writes, it compiles.
      expect(await store.compileMemories("run")).toMatchObject({ memoriesCreated: 1 });
    });
  });

  describe("compileMemoriesWait", () => {
    it("times out at once when no time is given, before the job ran", async () => {
      // A frozen monotonic clock: the deadline is exactly now.
      vi.useFakeTimers({ toFake: ["performance"] });
      const store = open();
      await store.createEpisode(note("Use a queue"));
      await expect(store.compileMemoriesWait("run", { timeoutMs: 0 })).rejects.toBeInstanceOf(
        CompileTimeoutError,
      );
    });

    it("keeps to its timeout when the poll interval is longer", async () => {
      const path = join(tempDir(), "store.db");
      const store = open({ path });
      await store.createEpisode(note("Use a queue"));
      // The job can never record its end: it stays "running" for pollers.
      refuse(
        path,
        "CREATE TRIGGER refuse BEFORE UPDATE ON compile_jobs WHEN NEW.status <> 'running' BEGIN SELECT RAISE(ABORT, 'locked'); END",
      );
      const error = await store
        .compileMemoriesWait("run", { timeoutMs: 30, pollIntervalMs: 60_000 })
        .catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(CompileTimeoutError);
      const jobId = (error as CompileTimeoutError).jobId;
      expect((await store.getCompileStatus(jobId)).status).toBe("running");
    });
  });

  describe("close", () => {
    it("drops a job that has not run yet", async () => {
      const path = join(tempDir(), "store.db");
      const store = open({ path });
      await store.createEpisode(note("Use a queue"));
      const job = await store.compileMemoriesAsync("run");
      await store.close();
      await nextMacrotask();
      const reopened = open({ path });
      expect(await reopened.getCompileStatus(job.jobId)).toMatchObject({ status: "pending" });
      expect((await reopened.getTimeline("run")).memories).toEqual([]);
    });
  });
});
