import type { CompileJob, CompileResult, CompileWaitOptions, Memory } from "./context-store.js";
import { CompileEpisodeError, type SkippedEpisode } from "./errors/compile-episode-error.js";
import { CompileTimeoutError } from "./errors/compile-timeout-error.js";
import { StoreValidationError } from "./errors/store-validation-error.js";
import { waitForJob } from "./wait-for-job.js";

/**
 * What the SQL stores (SQLite, Postgres) share around a compile: the result or error of a call,
 * the job a `compile_jobs` row describes, the words a failed job reports, and the wait for a job.
 */

/** The `compile_jobs` columns every SQL store keeps. */
export interface CompileJobColumns {
  job_id: string;
  subject_id: string;
  status: string;
  memories_created: number | null;
  memory_ids: string | null;
  error: string | null;
}

/**
 * A compile's result, once its transaction committed.
 * @throws CompileEpisodeError when episodes were skipped (the rest compiled, and they are
 * skipped for good); it names the first 20
 */
export function compileResultOf(
  subjectId: string,
  compiled: { memories: Memory[]; skipped: SkippedEpisode[] },
): CompileResult {
  const { memories, skipped } = compiled;
  if (skipped.length > 0) {
    throw new CompileEpisodeError(subjectId, skipped.slice(0, 20), memories.length);
  }
  return { subjectId, memoriesCreated: memories.length, memories };
}

/** The ids a completed job row lists (`memory_ids`, JSON text), in compile order. */
export function jobMemoryIds(row: CompileJobColumns): string[] {
  return JSON.parse(row.memory_ids ?? "[]") as string[];
}

/** The job a `compile_jobs` row describes; `memories` are the completed job's memories. */
export function compileJobOf(row: CompileJobColumns, memories: () => Memory[]): CompileJob;
export function compileJobOf(
  row: CompileJobColumns,
  memories: () => Promise<Memory[]>,
): Promise<CompileJob>;
export function compileJobOf(
  row: CompileJobColumns,
  memories: () => Memory[] | Promise<Memory[]>,
): CompileJob | Promise<CompileJob> {
  const job: CompileJob = {
    jobId: row.job_id,
    status: row.status as CompileJob["status"],
    subjectId: row.subject_id,
  };
  if (row.status === "failed") job.error = row.error ?? "compile failed";
  if (row.status !== "completed") return job;
  job.memoriesCreated = row.memories_created ?? 0;
  const found = memories();
  if (Array.isArray(found)) {
    job.memories = found;
    return job;
  }
  return found.then((list) => {
    job.memories = list;
    return job;
  });
}

/**
 * What a failed job reports: our own errors say what happened in words; a driver's message is
 * never quoted (it can name tables and SQL), only what `databaseFailure` makes of it (a code),
 * or the error's class.
 */
export function compileJobFailure(
  error: unknown,
  databaseFailure: (error: unknown) => string | undefined,
): string {
  if (error instanceof CompileEpisodeError || error instanceof StoreValidationError) {
    return error.message;
  }
  return (
    databaseFailure(error) ??
    `compile failed: an internal error (${error instanceof Error ? error.name : typeof error})`
  );
}

/** How {@link waitForCompileJob} reaches the store. */
export interface CompileJobSource {
  /** Starts the job (`compileMemoriesAsync`). */
  start: () => CompileJob | Promise<CompileJob>;
  /** The job's status now (`getCompileStatus`). */
  status: (jobId: string) => CompileJob | Promise<CompileJob>;
  /** The job's own promise while it runs in this process, if it does. */
  running: (jobId: string) => Promise<void> | undefined;
}

/**
 * Starts a compile job and polls it until it completes or fails (`compileMemoriesWait`).
 * @throws CompileTimeoutError when it has not finished within `options.timeoutMs`
 */
export async function waitForCompileJob(
  source: CompileJobSource,
  options: CompileWaitOptions = {},
): Promise<CompileJob> {
  const started = await source.start();
  const timeoutMs = options.timeoutMs ?? 60_000;
  const pollIntervalMs = options.pollIntervalMs ?? 500;
  // Monotonic: a wall-clock jump must not end (or stretch) the wait.
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const job = await source.status(started.jobId);
    if (job.status === "completed" || job.status === "failed") return job;
    const remaining = deadline - performance.now();
    if (remaining <= 0) throw new CompileTimeoutError(started.jobId, timeoutMs);
    // In this process the job's own promise says when it is done; poll only as a fallback.
    const running = source.running(started.jobId);
    await waitForJob(
      running,
      running ? remaining : Math.min(pollIntervalMs, remaining),
      options.signal,
    );
  }
}
