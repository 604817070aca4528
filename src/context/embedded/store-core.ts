import { randomUUID } from "node:crypto";
import Database from "better-sqlite3";
import { compileJobFailure, compileJobOf, compileResultOf, jobMemoryIds } from "../compile-jobs.js";
import type * as Store from "../context-store.js";
import { CompileJobNotFoundError } from "../errors/compile-job-not-found-error.js";
import { StoreClosedError } from "../errors/store-closed-error.js";
import { validateChangesLimit, validateMemoryQuery } from "../memory-query.js";
import { rankContext } from "../rank-context.js";
import { readChangeCursor } from "../store-cursors.js";
import {
  contextRequest,
  requireItemId,
  requireSubjectId,
  subjectsRequest,
  timelineRequest,
} from "../store-requests.js";
import {
  validateEpisodeBatch,
  validateEpisodeInput,
  validateSearchOptions,
} from "../validate-input.js";
import { compileLocked } from "./compile.js";
import { ContextRowCache, readContextCandidates } from "./context-read.js";
import type { EmbeddedStoreOptions } from "./embedded-store.js";
import { type EpisodeWrite, insertEpisode, writeBatch, writeGroup } from "./episode-writes.js";
import {
  changePage,
  episodeById,
  memoryById,
  memoryPageRows,
  timelinePageRows,
} from "./exact-reads.js";
import { type CompileJobRow, type MemoryRow, memoryFromRow } from "./rows.js";
import { isInMemory, SqliteHandle } from "./sqlite-handle.js";
import {
  changeRows,
  deleteSubjectRows,
  searchRows,
  subjectRows,
  timelineRows,
  watchCursors,
} from "./subject-reads.js";
import { WatchHub } from "./watch-hub.js";

/** The embedded store's options but its tenant: one core serves every tenant's view. */
export type StoreCoreOptions = Omit<EmbeddedStoreOptions, "tenantId">;

/** A `createEpisode` waiting for the next group commit. */
interface PendingEpisode extends EpisodeWrite {
  resolve: (episode: Store.Episode) => void;
  reject: (error: unknown) => void;
}

/**
 * The embedded store's engine: one better-sqlite3 handle shared by every tenant view. Every
 * method takes the tenant explicitly and every query filters on it (`tenant_id IS ?`, so the
 * default tenant `null` only ever matches its own rows). The rooms: `sqlite-handle.ts` (open,
 * pragmas, statements), `episode-writes.ts`, `compile.ts`, `context-read.ts`, `subject-reads.ts`
 * (reads, deletes, the watch feed's rows); this class validates, sequences and notifies.
 */
export class EmbeddedStoreCore {
  readonly path: string;
  readonly #handle: SqliteHandle;
  readonly #now: () => Date;
  readonly #generateId: () => string;
  readonly #hub: WatchHub;
  readonly #jobs = new Map<string, Promise<void>>();
  /** Whether `createEpisode` through a tenant view waits for a group commit. */
  readonly groupCommit: boolean;
  #pending: PendingEpisode[] = [];
  #flushScheduled = false;
  #closed = false;
  /** Active memory rows `getContext` has read (see `ContextRowCache`). */
  readonly #contextRows = new ContextRowCache();

  constructor(options: StoreCoreOptions) {
    this.path = options.path;
    this.#now = options.now ?? (() => new Date());
    this.#generateId = options.generateId ?? randomUUID;
    this.groupCommit = options.groupCommit ?? false;
    const handle = new SqliteHandle(options.path, { checkIntegrity: options.checkIntegrity });
    this.#handle = handle;
    this.#hub = new WatchHub(
      {
        cursors: (tenantId, subjectId) => watchCursors(handle, tenantId, subjectId),
        changesAfter: (tenantId, subjectId, after, limit) =>
          this.#closed ? [] : changeRows(handle, tenantId, subjectId, after, limit),
        dataVersion: () => handle.dataVersion(),
      },
      { pollIntervalMs: options.pollIntervalMs ?? 25, crossProcess: !isInMemory(options.path) },
    );
  }

  #open(signal?: AbortSignal): void {
    if (this.#closed) throw new StoreClosedError(this.path);
    signal?.throwIfAborted();
  }

  #timestamp(): string {
    return this.#now().toISOString();
  }

  // ---- episodes -------------------------------------------------------------------------------

  createEpisode(
    tenantId: string | null,
    input: Store.CreateEpisodeInput,
    signal?: AbortSignal,
  ): Store.Episode {
    this.#open(signal);
    const write = { tenantId, input: validateEpisodeInput(input), createdAt: this.#timestamp() };
    // Autocommit: the insert is its own transaction, committed when run() returns. A keyed one
    // reads before it writes: IMMEDIATE takes the write lock first, so the read stays true.
    const insert = () => insertEpisode(this.#handle, this.#generateId, write, "");
    const episode = write.input.idempotencyKey === null ? insert() : this.#handle.immediate(insert);
    this.#hub.notify(tenantId, episode.subjectId);
    return episode;
  }

  /**
   * `createEpisode` with a group commit: every call made before the event loop's next check phase
   * (all the requests one poll of the sockets delivered) is inserted in one transaction. The
   * promise settles after that transaction committed, so an acknowledged episode is as durable as
   * one from {@link createEpisode}; a commit costs ~50 µs, so one per group instead of one per
   * episode is what lets `serve` take thousands of creates a second from concurrent clients.
   * Input is validated at once: bad input rejects without waiting.
   */
  createEpisodeGrouped(
    tenantId: string | null,
    input: Store.CreateEpisodeInput,
    signal?: AbortSignal,
  ): Promise<Store.Episode> {
    this.#open(signal);
    const valid = validateEpisodeInput(input);
    const createdAt = this.#timestamp();
    return new Promise<Store.Episode>((resolve, reject) => {
      this.#pending.push({ tenantId, input: valid, createdAt, resolve, reject });
      if (!this.#flushScheduled) {
        this.#flushScheduled = true;
        setImmediate(() => this.#flushPending());
      }
    });
  }

  #flushPending(): void {
    this.#flushScheduled = false;
    const group = this.#pending;
    this.#pending = [];
    if (group.length === 0) return;
    if (this.#closed) {
      for (const item of group) item.reject(new StoreClosedError(this.path));
      return;
    }
    let outcomes: ReturnType<typeof writeGroup>;
    try {
      outcomes = writeGroup(this.#handle, this.#generateId, group);
    } catch (error) {
      // The commit itself failed (e.g. locked past the busy timeout): nothing was stored.
      for (const item of group) item.reject(error);
      return;
    }
    // Each (tenant, subject) the group wrote to, once: one catch-up delivers all its changes.
    const written = new Map<string, { tenantId: string | null; subjectId: string }>();
    for (const [index, outcome] of outcomes.entries()) {
      const item = group[index];
      if (!item) continue;
      if ("error" in outcome) {
        item.reject(outcome.error);
        continue;
      }
      const { subjectId } = outcome.episode;
      // JSON keeps the default tenant (null) apart from a tenant named "".
      written.set(JSON.stringify([item.tenantId, subjectId]), {
        tenantId: item.tenantId,
        subjectId,
      });
      item.resolve(outcome.episode);
    }
    for (const { tenantId, subjectId } of written.values()) this.#hub.notify(tenantId, subjectId);
  }

  createEpisodesBatch(
    tenantId: string | null,
    inputs: Store.CreateEpisodeInput[],
    signal?: AbortSignal,
  ): { episodesCreated: number; episodes: Store.Episode[] } {
    this.#open(signal);
    const valid = validateEpisodeBatch(inputs);
    const createdAt = this.#timestamp();
    const episodes = writeBatch(this.#handle, this.#generateId, tenantId, valid, createdAt);
    for (const subjectId of new Set(episodes.map((episode) => episode.subjectId))) {
      this.#hub.notify(tenantId, subjectId);
    }
    return { episodesCreated: episodes.length, episodes };
  }

  // ---- compile --------------------------------------------------------------------------------

  compileMemories(
    tenantId: string | null,
    subjectId: string,
    signal?: AbortSignal,
  ): Store.CompileResult {
    this.#open(signal);
    requireSubjectId(subjectId);
    // IMMEDIATE takes the write lock before reading the uncompiled episodes, so two processes
    // compiling the same subject at once never both turn one episode into a memory.
    const compiled = this.#handle.immediate(() =>
      compileLocked(this.#handle, {
        tenantId,
        subjectId,
        now: this.#timestamp(),
        generateId: this.#generateId,
      }),
    );
    if (compiled.memories.length > 0) this.#hub.notify(tenantId, subjectId);
    return compileResultOf(subjectId, compiled);
  }

  compileMemoriesAsync(
    tenantId: string | null,
    subjectId: string,
    signal?: AbortSignal,
  ): Store.CompileJob {
    this.#open(signal);
    requireSubjectId(subjectId);
    const jobId = this.#generateId();
    const now = this.#timestamp();
    this.#handle
      .statement(
        `INSERT INTO compile_jobs (job_id, tenant_id, subject_id, status, created_at, updated_at) VALUES (?, ?, ?, 'pending', ?, ?)`,
      )
      .run(jobId, tenantId, subjectId, now, now);
    // The job runs on the next macrotask, like Statewave's background task: the caller gets
    // "pending" at once and polls.
    const done = new Promise<void>((resolve) => {
      setImmediate(() => {
        this.#runJob(jobId, tenantId, subjectId);
        this.#jobs.delete(jobId);
        resolve();
      });
    });
    this.#jobs.set(jobId, done);
    return { jobId, status: "pending", subjectId };
  }

  #runJob(jobId: string, tenantId: string | null, subjectId: string): void {
    if (this.#closed) return;
    const setStatus = this.#handle.statement(
      `UPDATE compile_jobs SET status = ?, memories_created = ?, memory_ids = ?, error = ?, updated_at = ? WHERE job_id = ?`,
    );
    try {
      setStatus.run("running", null, null, null, this.#timestamp(), jobId);
      const result = this.compileMemories(tenantId, subjectId);
      const ids = JSON.stringify(result.memories.map((memory) => memory.id));
      setStatus.run("completed", result.memoriesCreated, ids, null, this.#timestamp(), jobId);
    } catch (error) {
      if (this.#closed) return;
      const message = compileJobFailure(error, (failure) =>
        failure instanceof Database.SqliteError
          ? `compile failed: the database failed (${failure.code})`
          : undefined,
      );
      try {
        setStatus.run("failed", null, null, message, this.#timestamp(), jobId);
      } catch {
        // The database itself is failing (e.g. locked past the busy timeout): the job stays
        // "running" for pollers, and a throw here would crash the process from setImmediate.
      }
    }
  }

  getCompileStatus(tenantId: string | null, jobId: string, signal?: AbortSignal): Store.CompileJob {
    this.#open(signal);
    const row =
      typeof jobId === "string"
        ? this.#handle
            .statement<CompileJobRow>(
              `SELECT * FROM compile_jobs WHERE job_id = ? AND tenant_id IS ?`,
            )
            .get(jobId, tenantId)
        : undefined;
    if (!row) throw new CompileJobNotFoundError(String(jobId));
    return compileJobOf(row, () =>
      this.#handle
        .statement<MemoryRow>(
          `SELECT m.* FROM json_each(?) AS j JOIN memories m ON m.id = j.value ORDER BY m.seq`,
        )
        .all(JSON.stringify(jobMemoryIds(row)))
        .map(memoryFromRow),
    );
  }

  /** A compile job's own promise while it runs in this process (see `TenantScopedCore`). */
  runningJob(jobId: string): Promise<void> | undefined {
    return this.#jobs.get(jobId);
  }

  // ---- reads ----------------------------------------------------------------------------------

  searchMemories(
    tenantId: string | null,
    subjectId: string,
    options: Store.SearchMemoriesOptions & { signal?: AbortSignal } = {},
  ): Store.Memory[] {
    this.#open(options.signal);
    requireSubjectId(subjectId);
    return searchRows(this.#handle, tenantId, subjectId, validateSearchOptions(options));
  }

  getContext(
    tenantId: string | null,
    subjectId: string,
    task: string,
    options: Store.GetContextOptions & { signal?: AbortSignal } = {},
  ): Store.ContextBundle {
    this.#open(options.signal);
    const { maxTokens } = contextRequest(subjectId, task, options);
    const read = readContextCandidates(this.#handle, this.#contextRows, tenantId, subjectId, task);
    return rankContext({ subjectId, task, maxTokens, ...read });
  }

  getTimeline(
    tenantId: string | null,
    subjectId: string,
    options: Store.TimelineOptions & { signal?: AbortSignal } = {},
  ): Store.Timeline {
    this.#open(options.signal);
    const request = timelineRequest(subjectId, options);
    // One read transaction: episodes and memories from the same snapshot.
    return request.after === null
      ? timelineRows(this.#handle, tenantId, subjectId, request)
      : timelinePageRows(this.#handle, tenantId, subjectId, request.after, request.limit);
  }

  listMemories(
    tenantId: string | null,
    subjectId: string,
    query: Store.MemoryQuery & { signal?: AbortSignal } = {},
  ): Store.MemoryPage {
    this.#open(query.signal);
    requireSubjectId(subjectId);
    return memoryPageRows(this.#handle, tenantId, subjectId, validateMemoryQuery(query));
  }

  getMemory(
    tenantId: string | null,
    subjectId: string,
    memoryId: string,
    signal?: AbortSignal,
  ): Store.Memory | null {
    this.#open(signal);
    requireSubjectId(subjectId);
    return memoryById(this.#handle, tenantId, subjectId, requireItemId("memoryId", memoryId));
  }

  getEpisode(
    tenantId: string | null,
    subjectId: string,
    episodeId: string,
    signal?: AbortSignal,
  ): Store.Episode | null {
    this.#open(signal);
    requireSubjectId(subjectId);
    return episodeById(this.#handle, tenantId, subjectId, requireItemId("episodeId", episodeId));
  }

  changesSince(
    tenantId: string | null,
    subjectId: string,
    cursor: string | null,
    options: { limit?: number; signal?: AbortSignal } = {},
  ): Store.ChangePage {
    this.#open(options.signal);
    requireSubjectId(subjectId);
    const after = readChangeCursor(cursor);
    const limit = validateChangesLimit(options.limit);
    return changePage(this.#handle, tenantId, subjectId, after, limit);
  }

  listSubjects(
    tenantId: string | null,
    options: Store.ListSubjectsOptions & { signal?: AbortSignal } = {},
  ): Store.ListSubjectsResult {
    this.#open(options.signal);
    return subjectRows(this.#handle, tenantId, subjectsRequest(options));
  }

  deleteSubject(
    tenantId: string | null,
    subjectId: string,
    signal?: AbortSignal,
  ): Store.DeleteSubjectResult {
    this.#open(signal);
    requireSubjectId(subjectId);
    const result = deleteSubjectRows(this.#handle, tenantId, subjectId);
    this.#hub.reset(tenantId, subjectId);
    return result;
  }

  // ---- watch ----------------------------------------------------------------------------------

  watch(
    tenantId: string | null,
    subjectId: string,
    listener: (change: Store.StoreChange) => void,
    options: Store.WatchOptions = {},
  ): Store.Subscription {
    this.#open();
    requireSubjectId(subjectId);
    return this.#hub.watch(tenantId, subjectId, listener, options);
  }

  /** Closes the handle and stops every watcher; pending compile jobs are dropped. Idempotent. */
  close(): void {
    if (this.#closed) return;
    // Episodes already accepted into a group commit are written before the handle closes.
    this.#flushPending();
    this.#closed = true;
    this.#hub.close();
    this.#handle.close();
  }
}
