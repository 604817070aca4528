import { randomUUID } from "node:crypto";
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
import { compileLocked, memoriesByIds } from "./compile.js";
import { isIdempotencyConflict, PostgresConnection, readSnapshot, sqlState } from "./connection.js";
import { readContextCandidates } from "./context-candidates.js";
import {
  episodeOf,
  episodesByKey,
  insertEpisode,
  prepareEpisode,
  writeBatch,
} from "./episode-writes.js";
import { PostgresConnectionError } from "./errors/postgres-connection-error.js";
import {
  changePage,
  episodeById,
  memoryById,
  memoryPageRows,
  timelinePageRows,
} from "./exact-reads.js";
import { listenForChanges } from "./listen-connection.js";
import { toStoreError } from "./postgres-errors.js";
import type { PostgresStoreOptions } from "./postgres-store.js";
import { changeKey, episodeFromRow, memoryFromRow, tenantKey } from "./rows.js";
import {
  changeRows,
  compileJobRow,
  deleteSubjectRows,
  searchRows,
  subjectRows,
  timelineRows,
  watchCursors,
} from "./subject-reads.js";
import { PostgresWatchHub } from "./watch-hub.js";

/** The Postgres store's options but its tenant: one core serves every tenant's view. */
export type PostgresCoreOptions = Omit<PostgresStoreOptions, "tenantId">;

/**
 * How long one statement may run (and the server may stay silent) before the request fails with
 * a `PostgresConnectionError` (503 on `serve`). @see PostgresStoreOptions.statementTimeoutMs
 */
export const defaultStatementTimeoutMs = 15_000;

/** The NOTIFY channel every replica writes to and listens on. */
const notifyChannel = "shared_ctx_changes";

/**
 * The Postgres store's engine: one connection pool (and, while anyone watches, one LISTEN
 * connection) shared by every tenant view. Every query filters on the tenant's key. The rooms:
 * `connection.ts` (pool, transactions, error mapping), `episode-writes.ts`, `compile.ts`,
 * `context-candidates.ts`, `subject-reads.ts` (reads, deletes, the watch feed's rows); this
 * class validates, sequences and notifies.
 */
export class PostgresStoreCore {
  /** The database URL with the password hidden: what errors and logs name. */
  readonly location: string;
  readonly #url: string;
  readonly #connection: PostgresConnection;
  readonly #now: () => Date;
  readonly #generateId: () => string;
  readonly #reconnectDelayMs: number;
  readonly #hub: PostgresWatchHub;
  readonly #jobs = new Map<string, Promise<void>>();

  constructor(options: PostgresCoreOptions) {
    this.#url = options.url;
    this.#connection = new PostgresConnection({
      url: options.url,
      maxConnections: options.maxConnections ?? 10,
      statementTimeoutMs: options.statementTimeoutMs ?? defaultStatementTimeoutMs,
    });
    this.location = this.#connection.location;
    this.#now = options.now ?? (() => new Date());
    this.#generateId = options.generateId ?? randomUUID;
    this.#reconnectDelayMs = options.reconnectDelayMs ?? 500;
    const run = this.#connection.run.bind(this.#connection);
    this.#hub = new PostgresWatchHub(
      {
        cursors: (tenant, subjectId, since) =>
          run(undefined, (pool) => watchCursors(pool, tenant, subjectId, since)),
        // No closed check of its own: close() closes every hub watcher in the step that sets
        // the closed flag, and the hub asks only for a watcher it has just seen open.
        changesAfter: (tenant, subjectId, after, limit) =>
          run(undefined, (pool) => changeRows(pool, tenant, subjectId, after, limit)),
        listen: (onChange, onReconnect, onError) => this.#listen(onChange, onReconnect, onError),
      },
      { pollIntervalMs: options.pollIntervalMs ?? 1000, now: () => this.#now() },
    );
  }

  /** Connects (and migrates) now. */
  async connect(): Promise<void> {
    await this.#connection.run(undefined, async () => undefined);
  }

  #timestamp(): string {
    return this.#now().toISOString();
  }

  // ---- episodes -------------------------------------------------------------------------------

  async createEpisode(
    tenantId: string | null,
    input: Store.CreateEpisodeInput,
    signal?: AbortSignal,
  ): Promise<Store.Episode> {
    const prepared = prepareEpisode(validateEpisodeInput(input), this.#generateId(), "");
    const tenant = tenantKey(tenantId);
    return this.#connection.run(signal, async (pool) => {
      await this.#hub.settled();
      const { input: valid } = prepared;
      const key = valid.idempotencyKey;
      const storedFirst = async () =>
        key === null ? undefined : (await episodesByKey(pool, tenant, [valid.subjectId], [key]))[0];
      const first = await storedFirst();
      if (first) return episodeFromRow(first);
      let createdAt: string | undefined;
      try {
        createdAt = await insertEpisode(pool, tenant, prepared, {
          now: this.#timestamp(),
          channel: notifyChannel,
        });
      } catch (error) {
        // Another request with the same key committed between our read and our insert.
        if (key === null || !isIdempotencyConflict(error)) throw error;
        const winner = await storedFirst();
        if (!winner) throw error;
        return episodeFromRow(winner);
      }
      this.#hub.notify(changeKey(tenant, valid.subjectId));
      return episodeOf(prepared, createdAt ?? this.#timestamp());
    });
  }

  async createEpisodesBatch(
    tenantId: string | null,
    inputs: Store.CreateEpisodeInput[],
    signal?: AbortSignal,
  ): Promise<{ episodesCreated: number; episodes: Store.Episode[] }> {
    const prepared = validateEpisodeBatch(inputs).map((input, index) =>
      prepareEpisode(input, this.#generateId(), `episodes[${index}].`),
    );
    const tenant = tenantKey(tenantId);
    return this.#connection.run(signal, async (pool) => {
      await this.#hub.settled();
      // A concurrent request may commit one of our keys first: then read again, and retry once
      // more at most per such race (each retry finds at least one more key stored).
      for (let attempt = 0; ; attempt += 1) {
        try {
          return await writeBatch(pool, tenant, prepared, {
            now: () => this.#timestamp(),
            channel: notifyChannel,
            notify: (key) => this.#hub.notify(key),
          });
        } catch (error) {
          if (attempt >= 2 || !isIdempotencyConflict(error)) throw error;
        }
      }
    });
  }

  // ---- compile --------------------------------------------------------------------------------

  async compileMemories(
    tenantId: string | null,
    subjectId: string,
    signal?: AbortSignal,
  ): Promise<Store.CompileResult> {
    requireSubjectId(subjectId);
    const tenant = tenantKey(tenantId);
    const key = changeKey(tenant, subjectId);
    const compiled = await this.#connection.runInTransaction(signal, "BEGIN", (client) =>
      compileLocked(client, {
        tenant,
        subjectId,
        now: this.#timestamp(),
        generateId: this.#generateId,
        notifyChannel,
        changeKey: key,
      }),
    );
    if (compiled.memories.length > 0) this.#hub.notify(key);
    // Committed: the rest compiled, and skipped episodes are skipped for good.
    return compileResultOf(subjectId, compiled);
  }

  async compileMemoriesAsync(
    tenantId: string | null,
    subjectId: string,
    signal?: AbortSignal,
  ): Promise<Store.CompileJob> {
    requireSubjectId(subjectId);
    const tenant = tenantKey(tenantId);
    const jobId = this.#generateId();
    await this.#connection.run(signal, async (pool) => {
      const now = this.#timestamp();
      await pool.query(
        `INSERT INTO compile_jobs (job_id, tenant_key, subject_id, status, created_at, updated_at) VALUES ($1, $2, $3, 'pending', $4, $4)`,
        [jobId, tenant, subjectId, now],
      );
    });
    // The job runs in this process, its status lives in the database: any replica answers a poll.
    const done = new Promise<void>((resolve) => {
      setImmediate(() => {
        this.#runJob(jobId, tenantId, subjectId).finally(() => {
          this.#jobs.delete(jobId);
          resolve();
        });
      });
    });
    this.#jobs.set(jobId, done);
    return { jobId, status: "pending", subjectId };
  }

  async #runJob(jobId: string, tenantId: string | null, subjectId: string): Promise<void> {
    if (this.#connection.closed) return;
    const setStatus = (
      status: string,
      created: number | null,
      ids: string | null,
      error: string | null,
    ) =>
      this.#connection.run(undefined, (pool) =>
        pool.query(
          `UPDATE compile_jobs SET status = $1, memories_created = $2, memory_ids = $3, error = $4, updated_at = $5 WHERE job_id = $6`,
          [status, created, ids, error, this.#timestamp(), jobId],
        ),
      );
    try {
      await setStatus("running", null, null, null);
      const result = await this.compileMemories(tenantId, subjectId);
      const ids = JSON.stringify(result.memories.map((memory) => memory.id));
      await setStatus("completed", result.memoriesCreated, ids, null);
    } catch (error) {
      if (this.#connection.closed) return;
      const message = compileJobFailure(error, (failure) =>
        failure instanceof PostgresConnectionError
          ? "compile failed: the database is unavailable"
          : sqlState(failure) !== undefined
            ? `compile failed: the database failed (SQLSTATE ${sqlState(failure)})`
            : undefined,
      );
      // The database itself may be failing: then the job stays "running" for pollers.
      await setStatus("failed", null, null, message).catch(() => undefined);
    }
  }

  async getCompileStatus(
    tenantId: string | null,
    jobId: string,
    signal?: AbortSignal,
  ): Promise<Store.CompileJob> {
    const tenant = tenantKey(tenantId);
    return this.#connection.run(signal, async (pool) => {
      const row = await compileJobRow(pool, tenant, jobId);
      if (!row) throw new CompileJobNotFoundError(String(jobId));
      return compileJobOf(row, async () =>
        (await memoriesByIds(pool, tenant, jobMemoryIds(row))).map(memoryFromRow),
      );
    });
  }

  /** A compile job's own promise while it runs in this process (see `TenantScopedCore`). */
  runningJob(jobId: string): Promise<void> | undefined {
    return this.#jobs.get(jobId);
  }

  // ---- reads ----------------------------------------------------------------------------------

  async searchMemories(
    tenantId: string | null,
    subjectId: string,
    options: Store.SearchMemoriesOptions & { signal?: AbortSignal } = {},
  ): Promise<Store.Memory[]> {
    requireSubjectId(subjectId);
    const search = validateSearchOptions(options);
    const tenant = tenantKey(tenantId);
    return this.#connection.run(options.signal, (pool) =>
      searchRows(pool, tenant, subjectId, search),
    );
  }

  async getContext(
    tenantId: string | null,
    subjectId: string,
    task: string,
    options: Store.GetContextOptions & { signal?: AbortSignal } = {},
  ): Promise<Store.ContextBundle> {
    const { maxTokens } = contextRequest(subjectId, task, options);
    const tenant = tenantKey(tenantId);
    // One snapshot for every candidate query, as the embedded store reads in one transaction.
    const read = await this.#connection.runInTransaction(options.signal, readSnapshot, (client) =>
      readContextCandidates(client, tenant, subjectId, task),
    );
    return rankContext({ subjectId, task, maxTokens, ...read });
  }

  async getTimeline(
    tenantId: string | null,
    subjectId: string,
    options: Store.TimelineOptions & { signal?: AbortSignal } = {},
  ): Promise<Store.Timeline> {
    const page = timelineRequest(subjectId, options);
    const tenant = tenantKey(tenantId);
    const { after } = page;
    return this.#connection.runInTransaction(options.signal, readSnapshot, (client) =>
      after === null
        ? timelineRows(client, tenant, subjectId, page)
        : timelinePageRows(client, tenant, subjectId, after, page.limit),
    );
  }

  async listMemories(
    tenantId: string | null,
    subjectId: string,
    query: Store.MemoryQuery & { signal?: AbortSignal } = {},
  ): Promise<Store.MemoryPage> {
    requireSubjectId(subjectId);
    const valid = validateMemoryQuery(query);
    const tenant = tenantKey(tenantId);
    return this.#connection.run(query.signal, (pool) =>
      memoryPageRows(pool, tenant, subjectId, valid),
    );
  }

  async getMemory(
    tenantId: string | null,
    subjectId: string,
    memoryId: string,
    signal?: AbortSignal,
  ): Promise<Store.Memory | null> {
    requireSubjectId(subjectId);
    const id = requireItemId("memoryId", memoryId);
    const tenant = tenantKey(tenantId);
    return this.#connection.run(signal, (pool) => memoryById(pool, tenant, subjectId, id));
  }

  async getEpisode(
    tenantId: string | null,
    subjectId: string,
    episodeId: string,
    signal?: AbortSignal,
  ): Promise<Store.Episode | null> {
    requireSubjectId(subjectId);
    const id = requireItemId("episodeId", episodeId);
    const tenant = tenantKey(tenantId);
    return this.#connection.run(signal, (pool) => episodeById(pool, tenant, subjectId, id));
  }

  async changesSince(
    tenantId: string | null,
    subjectId: string,
    cursor: string | null,
    options: { limit?: number; signal?: AbortSignal } = {},
  ): Promise<Store.ChangePage> {
    requireSubjectId(subjectId);
    const after = readChangeCursor(cursor);
    const limit = validateChangesLimit(options.limit);
    const tenant = tenantKey(tenantId);
    return this.#connection.run(options.signal, (pool) =>
      changePage(pool, tenant, subjectId, after, limit),
    );
  }

  async listSubjects(
    tenantId: string | null,
    options: Store.ListSubjectsOptions & { signal?: AbortSignal } = {},
  ): Promise<Store.ListSubjectsResult> {
    const page = subjectsRequest(options);
    const tenant = tenantKey(tenantId);
    return this.#connection.runInTransaction(options.signal, readSnapshot, (client) =>
      subjectRows(client, tenant, page),
    );
  }

  async deleteSubject(
    tenantId: string | null,
    subjectId: string,
    signal?: AbortSignal,
  ): Promise<Store.DeleteSubjectResult> {
    requireSubjectId(subjectId);
    const tenant = tenantKey(tenantId);
    return this.#connection.runInTransaction(signal, "BEGIN", (client) =>
      deleteSubjectRows(client, tenant, subjectId),
    );
  }

  // ---- watch ----------------------------------------------------------------------------------

  watch(
    tenantId: string | null,
    subjectId: string,
    listener: (change: Store.StoreChange) => void,
    options: Store.WatchOptions = {},
  ): Store.Subscription {
    if (this.#connection.closed) throw new StoreClosedError(this.location);
    requireSubjectId(subjectId);
    const tenant = tenantKey(tenantId);
    return this.#hub.watch(tenant, subjectId, changeKey(tenant, subjectId), listener, options);
  }

  /** One dedicated LISTEN connection while anyone watches (see `listen-connection.ts`). */
  #listen(
    onChange: (key: string) => void,
    onReconnect: () => void,
    onError: (error: unknown) => void,
  ): () => void {
    return listenForChanges({
      url: this.#url,
      channel: notifyChannel,
      reconnectDelayMs: this.#reconnectDelayMs,
      closed: () => this.#connection.closed,
      ready: () => this.#connection.connect(),
      onChange,
      onListening: onReconnect,
      onError: (error) => onError(toStoreError(error, this.location)),
    });
  }

  /** Stops watchers, the LISTEN connection and the pool; pending compile jobs are dropped. Idempotent. */
  async close(): Promise<void> {
    // The closed flag is set before the hub closes: no watcher reads after it.
    const closing = this.#connection.close();
    this.#hub.close();
    await closing;
  }
}
