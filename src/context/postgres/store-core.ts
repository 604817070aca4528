import { randomUUID } from "node:crypto";
import type { Pool, PoolClient, QueryConfig, QueryResultRow } from "pg";
import type {
  CompileJob,
  CompileResult,
  CompileWaitOptions,
  ContextBundle,
  CreateEpisodeInput,
  DeleteSubjectResult,
  Episode,
  GetContextOptions,
  JsonObject,
  ListSubjectsOptions,
  ListSubjectsResult,
  Memory,
  SearchMemoriesOptions,
  StoreChange,
  Subscription,
  Timeline,
  TimelineOptions,
  WatchOptions,
} from "../context-store.js";
import { CompileEpisodeError } from "../errors/compile-episode-error.js";
import { CompileJobNotFoundError } from "../errors/compile-job-not-found-error.js";
import { CompileTimeoutError } from "../errors/compile-timeout-error.js";
import { StoreClosedError } from "../errors/store-closed-error.js";
import { StoreValidationError } from "../errors/store-validation-error.js";
import { rankContext } from "../rank-context.js";
import {
  inputLimits,
  requireId,
  requireInteger,
  requireOffset,
  requireSearchText,
  type ValidEpisodeInput,
  validateEpisodeBatch,
  validateEpisodeInput,
  validateSearchOptions,
} from "../validate-input.js";
import { waitForJob } from "../wait-for-job.js";
import { compileLocked, memoriesByIds } from "./compile.js";
import { readContextCandidates } from "./context-candidates.js";
import { redactDatabaseUrl } from "./database-url.js";
import { PostgresConnectionError } from "./errors/postgres-connection-error.js";
import { listenForChanges } from "./listen-connection.js";
import { toStoreError } from "./postgres-errors.js";
import {
  changeKey,
  type EpisodeRow,
  episodeColumns,
  episodeFromRow,
  type MemoryRow,
  memoryColumns,
  memoryFromRow,
  tenantKey,
} from "./rows.js";
import { migrate } from "./schema.js";
import { PostgresWatchHub, type WatchCursor } from "./watch-hub.js";

/** Options of the Postgres store; see `PostgresStoreOptions` in `postgres-store.ts`. */
export interface PostgresCoreOptions {
  url: string;
  now?: () => Date;
  generateId?: () => string;
  maxConnections?: number;
  pollIntervalMs?: number;
  reconnectDelayMs?: number;
  statementTimeoutMs?: number;
}

/**
 * How long one statement may run (and the server may stay silent) before the request fails with
 * a `PostgresConnectionError` (503 on `serve`). @see PostgresStoreOptions.statementTimeoutMs
 */
export const defaultStatementTimeoutMs = 15_000;

/** The NOTIFY channel every replica writes to and listens on. */
const notifyChannel = "shared_ctx_changes";

function toJsonText(field: string, value: JsonObject): string {
  try {
    return JSON.stringify(value);
  } catch {
    throw new StoreValidationError(field, "a JSON-serialisable object");
  }
}

/** The insert lost a race for an idempotency key: another request stored it first. */
function isIdempotencyConflict(error: unknown): boolean {
  return (
    sqlState(error) === "23505" &&
    typeof error === "object" &&
    error !== null &&
    Reflect.get(error, "constraint") === "episodes_idempotency"
  );
}

/** The SQLSTATE of a driver error (five characters), or undefined for any other error. */
function sqlState(error: unknown): string | undefined {
  if (typeof error !== "object" || error === null) return undefined;
  const code: unknown = Reflect.get(error, "code");
  return typeof code === "string" && /^[0-9A-Z]{5}$/.test(code) ? code : undefined;
}

/** An episode ready to insert: validated, serialised, with its id and time. */
interface PreparedEpisode {
  input: ValidEpisodeInput;
  id: string;
  payload: string;
  metadata: string;
  provenance: string;
}

/**
 * The Postgres store's engine: one connection pool (and, while anyone watches, one LISTEN
 * connection) shared by every tenant view. Every query filters on the tenant's key.
 */
export class PostgresStoreCore {
  /** The database URL with the password hidden: what errors and logs name. */
  readonly location: string;
  readonly #url: string;
  readonly #now: () => Date;
  readonly #generateId: () => string;
  readonly #maxConnections: number;
  readonly #reconnectDelayMs: number;
  readonly #statementTimeoutMs: number;
  readonly #hub: PostgresWatchHub;
  readonly #jobs = new Map<string, Promise<void>>();
  #pool: Promise<Pool> | undefined;
  #closed = false;

  constructor(options: PostgresCoreOptions) {
    this.#url = options.url;
    this.location = redactDatabaseUrl(options.url);
    this.#now = options.now ?? (() => new Date());
    this.#generateId = options.generateId ?? randomUUID;
    this.#maxConnections = options.maxConnections ?? 10;
    this.#reconnectDelayMs = options.reconnectDelayMs ?? 500;
    this.#statementTimeoutMs = options.statementTimeoutMs ?? defaultStatementTimeoutMs;
    this.#hub = new PostgresWatchHub(
      {
        cursors: (tenant, subjectId, since) => this.#cursors(tenant, subjectId, since),
        changesAfter: (tenant, subjectId, after, limit) =>
          this.#changesAfter(tenant, subjectId, after, limit),
        listen: (onChange, onReconnect, onError) => this.#listen(onChange, onReconnect, onError),
      },
      { pollIntervalMs: options.pollIntervalMs ?? 1000, now: () => this.#now() },
    );
  }

  // ---- connection -----------------------------------------------------------------------------

  /** The pool, created (and the schema migrated) on first use; a failed start is retried next call. */
  #connect(): Promise<Pool> {
    this.#pool ??= (async () => {
      // Imported on first use: commands that never touch Postgres never load the driver.
      const { default: pg } = await import("pg");
      const pool = new pg.Pool({
        connectionString: this.#url,
        max: this.#maxConnections,
        // Idle connections must not keep a finished process alive.
        allowExitOnIdle: true,
        // A free connection within the statement timeout (10 s at most), or a 503.
        connectionTimeoutMillis: Math.min(10_000, this.#statementTimeoutMs),
        // The server cancels a statement past the timeout (a slow query, a lock held too long)…
        statement_timeout: this.#statementTimeoutMs,
        // …and the client gives up one second later on a server that does not answer at all
        // (frozen, or a network that drops packets): a prompt 503, never a hang.
        query_timeout: this.#statementTimeoutMs + 1000,
      });
      // An idle connection dropped by the server: the pool replaces it; nothing to do here.
      pool.on("error", () => undefined);
      try {
        const client = await pool.connect();
        try {
          await migrate(client, this.location);
        } finally {
          client.release();
        }
      } catch (error) {
        await pool.end().catch(() => undefined);
        throw error;
      }
      return pool;
    })().catch((error: unknown) => {
      this.#pool = undefined;
      throw toStoreError(error, this.location);
    });
    return this.#pool;
  }

  /** Connects (and migrates) now. */
  async connect(): Promise<void> {
    await this.#run(undefined, async () => undefined);
  }

  /** Runs `work` with the store open, mapping driver errors to the store's typed errors. */
  async #run<T>(signal: AbortSignal | undefined, work: (pool: Pool) => Promise<T>): Promise<T> {
    if (this.#closed) throw new StoreClosedError(this.location);
    signal?.throwIfAborted();
    const pool = await this.#connect();
    try {
      return await work(pool);
    } catch (error) {
      if (this.#closed) throw new StoreClosedError(this.location);
      throw toStoreError(error, this.location);
    }
  }

  async #transaction<T>(
    pool: Pool,
    begin: string,
    work: (client: PoolClient) => Promise<T>,
  ): Promise<T> {
    const client = await pool.connect();
    try {
      await client.query(begin);
      const result = await work(client);
      await client.query("COMMIT");
      client.release();
      return result;
    } catch (error) {
      // A connection that timed out or broke may still be busy (or gone): it leaves the pool
      // (the server rolls its transaction back). One the server answered with an error is
      // rolled back and reused.
      if (sqlState(error) === undefined) {
        client.release(true);
        throw error;
      }
      await client.query("ROLLBACK").catch(() => undefined);
      client.release();
      throw error;
    }
  }

  static #query<Row extends QueryResultRow>(
    client: Pick<Pool, "query">,
    config: QueryConfig,
  ): Promise<Row[]> {
    return client.query<Row>(config).then((result) => result.rows);
  }

  #timestamp(): string {
    return this.#now().toISOString();
  }

  // ---- episodes -------------------------------------------------------------------------------

  #prepare(input: ValidEpisodeInput, field: string): PreparedEpisode {
    return {
      input,
      id: this.#generateId(),
      payload: toJsonText(`${field}payload`, input.payload),
      metadata: toJsonText(`${field}metadata`, input.metadata),
      provenance: toJsonText(`${field}provenance`, input.provenance),
    };
  }

  static #episodeOf(prepared: PreparedEpisode, createdAt: string): Episode {
    return {
      id: prepared.id,
      subjectId: prepared.input.subjectId,
      source: prepared.input.source,
      type: prepared.input.type,
      payload: JSON.parse(prepared.payload) as JsonObject,
      metadata: JSON.parse(prepared.metadata) as JsonObject,
      provenance: JSON.parse(prepared.provenance) as JsonObject,
      sessionId: prepared.input.sessionId,
      createdAt,
    };
  }

  async createEpisode(
    tenantId: string | null,
    input: CreateEpisodeInput,
    signal?: AbortSignal,
  ): Promise<Episode> {
    const prepared = this.#prepare(validateEpisodeInput(input), "");
    const tenant = tenantKey(tenantId);
    return this.#run(signal, async (pool) => {
      await this.#hub.settled();
      const { input: valid } = prepared;
      const key = valid.idempotencyKey;
      if (key !== null) {
        const [first] = await this.#episodesByKey(pool, tenant, [valid.subjectId], [key]);
        if (first) return episodeFromRow(first);
      }
      const change = changeKey(tenant, valid.subjectId);
      let rows: Array<{ created_at: string }>;
      try {
        // One statement, one transaction: the upsert row-locks the subject's sequence until the
        // insert commits, so episodes of a subject commit in seq order on every replica, and
        // created_at (never below the subject's last one) follows seq.
        rows = await PostgresStoreCore.#query<{ created_at: string }>(pool, {
          name: "shared-ctx-insert-episode",
          text: `WITH s AS (
                   INSERT INTO subjects (tenant_key, subject_id, last_seq, episode_count, last_created_at) VALUES ($1, $2, 1, 1, $10)
                   ON CONFLICT (tenant_key, subject_id) DO UPDATE
                     SET last_seq = subjects.last_seq + 1, episode_count = subjects.episode_count + 1,
                       last_created_at = GREATEST(subjects.last_created_at COLLATE "C", EXCLUDED.last_created_at)
                   RETURNING last_seq, last_created_at)
                 INSERT INTO episodes (tenant_key, subject_id, seq, id, source, type, payload, metadata, provenance, session_id, created_at, idempotency_key)
                 SELECT $1, $2, s.last_seq, $3, $4, $5, $6, $7, $8, $9, s.last_created_at, $13 FROM s
                 RETURNING created_at, pg_notify($11, $12)`,
          values: [
            tenant,
            valid.subjectId,
            prepared.id,
            valid.source,
            valid.type,
            prepared.payload,
            prepared.metadata,
            prepared.provenance,
            valid.sessionId,
            this.#timestamp(),
            notifyChannel,
            change,
            key,
          ],
        });
      } catch (error) {
        // Another request with the same key committed between our read and our insert.
        if (key === null || !isIdempotencyConflict(error)) throw error;
        const [first] = await this.#episodesByKey(pool, tenant, [valid.subjectId], [key]);
        if (!first) throw error;
        return episodeFromRow(first);
      }
      this.#hub.notify(change);
      return PostgresStoreCore.#episodeOf(prepared, rows[0]?.created_at ?? this.#timestamp());
    });
  }

  /** The stored episodes with these (subject, idempotency key) pairs, in no particular order. */
  async #episodesByKey(
    client: Pick<Pool, "query">,
    tenant: string,
    subjectIds: readonly string[],
    keys: readonly string[],
  ): Promise<Array<EpisodeRow & { idempotency_key: string }>> {
    return PostgresStoreCore.#query<EpisodeRow & { idempotency_key: string }>(client, {
      name: "shared-ctx-episodes-by-key",
      text: `SELECT ${episodeColumns}, idempotency_key FROM episodes
             WHERE tenant_key = $1 AND (subject_id, idempotency_key) IN (SELECT * FROM unnest($2::text[], $3::text[]))
               AND idempotency_key IS NOT NULL`,
      values: [tenant, subjectIds, keys],
    });
  }

  async createEpisodesBatch(
    tenantId: string | null,
    inputs: CreateEpisodeInput[],
    signal?: AbortSignal,
  ): Promise<{ episodesCreated: number; episodes: Episode[] }> {
    const prepared = validateEpisodeBatch(inputs).map((input, index) =>
      this.#prepare(input, `episodes[${index}].`),
    );
    const tenant = tenantKey(tenantId);
    return this.#run(signal, async (pool) => {
      await this.#hub.settled();
      // A concurrent request may commit one of our keys first: then read again, and retry once
      // more at most per such race (each retry finds at least one more key stored).
      for (let attempt = 0; ; attempt += 1) {
        try {
          return await this.#writeBatch(pool, tenant, prepared);
        } catch (error) {
          if (attempt >= 2 || !isIdempotencyConflict(error)) throw error;
        }
      }
    });
  }

  async #writeBatch(
    pool: Pool,
    tenant: string,
    prepared: readonly PreparedEpisode[],
  ): Promise<{ episodesCreated: number; episodes: Episode[] }> {
    // Keyed items whose key is stored already, or repeated within this batch, are not written:
    // they answer with the episode stored (or written here) first.
    const keyOf = (item: PreparedEpisode) =>
      item.input.idempotencyKey === null
        ? undefined
        : JSON.stringify([item.input.subjectId, item.input.idempotencyKey]);
    const keyed = prepared.filter((item) => item.input.idempotencyKey !== null);
    const stored = new Map<string, Episode>();
    if (keyed.length > 0) {
      const rows = await this.#episodesByKey(
        pool,
        tenant,
        keyed.map((item) => item.input.subjectId),
        keyed.map((item) => item.input.idempotencyKey ?? ""),
      );
      for (const row of rows) {
        stored.set(JSON.stringify([row.subject_id, row.idempotency_key]), episodeFromRow(row));
      }
    }
    const firstOfKey = new Map<string, PreparedEpisode>();
    const toWrite: PreparedEpisode[] = [];
    for (const item of prepared) {
      const key = keyOf(item);
      if (key !== undefined && (stored.has(key) || firstOfKey.has(key))) continue;
      if (key !== undefined) firstOfKey.set(key, item);
      toWrite.push(item);
    }
    const bySubject = new Map<string, PreparedEpisode[]>();
    for (const item of toWrite) {
      const list = bySubject.get(item.input.subjectId) ?? [];
      list.push(item);
      bySubject.set(item.input.subjectId, list);
    }
    // Subjects locked in one sorted order, so two batches never deadlock on each other.
    const subjects = [...bySubject.keys()].sort();
    const createdAt = new Map<PreparedEpisode, string>();
    if (toWrite.length > 0) {
      const now = this.#timestamp();
      await this.#transaction(pool, "BEGIN", async (client) => {
        const seqs = new Map<PreparedEpisode, number>();
        for (const subjectId of subjects) {
          const items = bySubject.get(subjectId) ?? [];
          const [row] = await PostgresStoreCore.#query<{
            last_seq: string;
            last_created_at: string;
          }>(client, {
            name: "shared-ctx-allocate-seqs",
            text: `INSERT INTO subjects (tenant_key, subject_id, last_seq, episode_count, last_created_at) VALUES ($1, $2, $3, $3, $4)
                   ON CONFLICT (tenant_key, subject_id) DO UPDATE
                     SET last_seq = subjects.last_seq + $3, episode_count = subjects.episode_count + $3,
                       last_created_at = GREATEST(subjects.last_created_at COLLATE "C", EXCLUDED.last_created_at)
                   RETURNING last_seq, last_created_at`,
            values: [tenant, subjectId, items.length, now],
          });
          const last = Number(row?.last_seq ?? items.length);
          items.forEach((item, index) => {
            seqs.set(item, last - items.length + 1 + index);
            // One time per subject for the whole batch, never below the subject's last one.
            createdAt.set(item, row?.last_created_at ?? now);
          });
        }
        await client.query({
          name: "shared-ctx-insert-episodes",
          text: `INSERT INTO episodes (tenant_key, subject_id, seq, id, source, type, payload, metadata, provenance, session_id, created_at, idempotency_key)
                 SELECT $1, v.subject_id, v.seq, v.id, v.source, v.type, v.payload, v.metadata, v.provenance, v.session_id, v.created_at, v.idempotency_key
                 FROM unnest($2::text[], $3::bigint[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[], $10::text[], $11::text[], $12::text[])
                   AS v (subject_id, seq, id, source, type, payload, metadata, provenance, session_id, created_at, idempotency_key)`,
          values: [
            tenant,
            toWrite.map((item) => item.input.subjectId),
            toWrite.map((item) => seqs.get(item) ?? 0),
            toWrite.map((item) => item.id),
            toWrite.map((item) => item.input.source),
            toWrite.map((item) => item.input.type),
            toWrite.map((item) => item.payload),
            toWrite.map((item) => item.metadata),
            toWrite.map((item) => item.provenance),
            toWrite.map((item) => item.input.sessionId),
            toWrite.map((item) => createdAt.get(item) ?? now),
            toWrite.map((item) => item.input.idempotencyKey),
          ],
        });
        for (const subjectId of subjects) {
          await client.query("SELECT pg_notify($1, $2)", [
            notifyChannel,
            changeKey(tenant, subjectId),
          ]);
        }
      });
      for (const subjectId of subjects) this.#hub.notify(changeKey(tenant, subjectId));
    }
    const written = new Map(
      toWrite.map((item) => [
        item,
        PostgresStoreCore.#episodeOf(item, createdAt.get(item) ?? this.#timestamp()),
      ]),
    );
    const episodes = prepared.map((item) => {
      const own = written.get(item);
      if (own) return own;
      const key = keyOf(item) ?? "";
      const first = firstOfKey.get(key);
      return stored.get(key) ?? (first ? written.get(first) : undefined) ?? own;
    });
    // Every item has an episode: its own, the stored one, or the batch's first with its key.
    const complete = episodes.filter((episode): episode is Episode => episode !== undefined);
    // Counted as the batch's episodes, de-duplicated ones included: a retried batch answers as
    // the first did.
    return { episodesCreated: complete.length, episodes: complete };
  }

  // ---- compile --------------------------------------------------------------------------------

  async compileMemories(
    tenantId: string | null,
    subjectId: string,
    signal?: AbortSignal,
  ): Promise<CompileResult> {
    requireId("subjectId", subjectId, inputLimits.subjectId);
    const tenant = tenantKey(tenantId);
    const key = changeKey(tenant, subjectId);
    const { memories, skipped } = await this.#run(signal, (pool) =>
      this.#transaction(pool, "BEGIN", (client) =>
        compileLocked(client, {
          tenant,
          subjectId,
          now: this.#timestamp(),
          generateId: this.#generateId,
          notifyChannel,
          changeKey: key,
        }),
      ),
    );
    if (memories.length > 0) this.#hub.notify(key);
    if (skipped.length > 0) {
      // Committed: the rest compiled, and the skipped episodes are skipped for good.
      throw new CompileEpisodeError(subjectId, skipped.slice(0, 20), memories.length);
    }
    return { subjectId, memoriesCreated: memories.length, memories };
  }

  async compileMemoriesAsync(
    tenantId: string | null,
    subjectId: string,
    signal?: AbortSignal,
  ): Promise<CompileJob> {
    requireId("subjectId", subjectId, inputLimits.subjectId);
    const tenant = tenantKey(tenantId);
    const jobId = this.#generateId();
    await this.#run(signal, async (pool) => {
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
    if (this.#closed) return;
    const setStatus = (
      status: string,
      created: number | null,
      ids: string | null,
      error: string | null,
    ) =>
      this.#run(undefined, (pool) =>
        pool.query(
          `UPDATE compile_jobs SET status = $1, memories_created = $2, memory_ids = $3, error = $4, updated_at = $5 WHERE job_id = $6`,
          [status, created, ids, error, this.#timestamp(), jobId],
        ),
      );
    try {
      await setStatus("running", null, null, null);
      const result = await this.compileMemories(tenantId, subjectId);
      await setStatus(
        "completed",
        result.memoriesCreated,
        JSON.stringify(result.memories.map((memory) => memory.id)),
        null,
      );
    } catch (error) {
      if (this.#closed) return;
      // Our own errors say what happened in words; a driver's message is never quoted (it can
      // name tables and SQL), only its class, as on the embedded store.
      const message =
        error instanceof CompileEpisodeError || error instanceof StoreValidationError
          ? error.message
          : error instanceof PostgresConnectionError
            ? "compile failed: the database is unavailable"
            : sqlState(error) !== undefined
              ? `compile failed: the database failed (SQLSTATE ${sqlState(error)})`
              : `compile failed: an internal error (${error instanceof Error ? error.name : typeof error})`;
      // The database itself may be failing: then the job stays "running" for pollers.
      await setStatus("failed", null, null, message).catch(() => undefined);
    }
  }

  async getCompileStatus(
    tenantId: string | null,
    jobId: string,
    signal?: AbortSignal,
  ): Promise<CompileJob> {
    const tenant = tenantKey(tenantId);
    return this.#run(signal, async (pool) => {
      const [row] =
        typeof jobId === "string" && !jobId.includes("\u0000")
          ? await PostgresStoreCore.#query<{
              job_id: string;
              subject_id: string;
              status: string;
              memories_created: number | null;
              memory_ids: string | null;
              error: string | null;
            }>(pool, {
              text: `SELECT job_id, subject_id, status, memories_created, memory_ids, error FROM compile_jobs WHERE job_id = $1 AND tenant_key = $2`,
              values: [jobId, tenant],
            })
          : [];
      if (!row) throw new CompileJobNotFoundError(String(jobId));
      const job: CompileJob = {
        jobId: row.job_id,
        status: row.status as CompileJob["status"],
        subjectId: row.subject_id,
      };
      if (row.status === "completed") {
        job.memoriesCreated = row.memories_created ?? 0;
        const ids = JSON.parse(row.memory_ids ?? "[]") as string[];
        job.memories = (await memoriesByIds(pool, tenant, ids)).map(memoryFromRow);
      }
      if (row.status === "failed") job.error = row.error ?? "compile failed";
      return job;
    });
  }

  async compileMemoriesWait(
    tenantId: string | null,
    subjectId: string,
    options: CompileWaitOptions = {},
  ): Promise<CompileJob> {
    const started = await this.compileMemoriesAsync(tenantId, subjectId, options.signal);
    const timeoutMs = options.timeoutMs ?? 60_000;
    const pollIntervalMs = options.pollIntervalMs ?? 500;
    const deadline = performance.now() + timeoutMs;
    for (;;) {
      const job = await this.getCompileStatus(tenantId, started.jobId, options.signal);
      if (job.status === "completed" || job.status === "failed") return job;
      const remaining = deadline - performance.now();
      if (remaining <= 0) throw new CompileTimeoutError(started.jobId, timeoutMs);
      const running = this.#jobs.get(started.jobId);
      await waitForJob(
        running,
        running ? remaining : Math.min(pollIntervalMs, remaining),
        options.signal,
      );
    }
  }

  // ---- reads ----------------------------------------------------------------------------------

  async searchMemories(
    tenantId: string | null,
    subjectId: string,
    options: SearchMemoriesOptions & { signal?: AbortSignal } = {},
  ): Promise<Memory[]> {
    requireId("subjectId", subjectId, inputLimits.subjectId);
    const { limit, kind, q } = validateSearchOptions(options);
    const tenant = tenantKey(tenantId);
    return this.#run(options.signal, async (pool) => {
      const filters = ["m.tenant_key = $1", "m.subject_id = $2", "m.status = 'active'"];
      const values: unknown[] = [tenant, subjectId];
      if (kind !== undefined) {
        values.push(kind);
        filters.push(`m.kind = $${values.length}`);
      }
      if (q !== undefined) {
        // strpos, not LIKE: '%' and '_' in q are literal text. lower() folds as SQLite's does
        // for ASCII (and further for other letters, which the embedded store leaves as they are).
        values.push(q);
        filters.push(`strpos(lower(m.content), lower($${values.length})) > 0`);
      }
      values.push(limit);
      const rows = await PostgresStoreCore.#query<MemoryRow>(pool, {
        text: `SELECT ${memoryColumns} FROM memories m WHERE ${filters.join(" AND ")} ORDER BY m.mseq DESC LIMIT $${values.length}`,
        values,
      });
      return rows.map(memoryFromRow);
    });
  }

  async getContext(
    tenantId: string | null,
    subjectId: string,
    task: string,
    options: GetContextOptions & { signal?: AbortSignal } = {},
  ): Promise<ContextBundle> {
    requireId("subjectId", subjectId, inputLimits.subjectId);
    requireSearchText("task", task, inputLimits.task);
    const maxTokens = requireInteger(
      "maxTokens",
      options.maxTokens,
      1,
      inputLimits.maxTokens,
      4000,
    );
    const tenant = tenantKey(tenantId);
    const read = await this.#run(options.signal, (pool) =>
      // One snapshot for every candidate query, as the embedded store reads in one transaction.
      this.#transaction(pool, "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", (client) =>
        readContextCandidates(client, tenant, subjectId, task),
      ),
    );
    return rankContext({ subjectId, task, maxTokens, ...read });
  }

  async getTimeline(
    tenantId: string | null,
    subjectId: string,
    options: TimelineOptions & { signal?: AbortSignal } = {},
  ): Promise<Timeline> {
    requireId("subjectId", subjectId, inputLimits.subjectId);
    const limit = requireInteger("limit", options.limit, 0, inputLimits.timelineLimit, 100);
    const offset = requireOffset("offset", options.offset);
    const tenant = tenantKey(tenantId);
    return this.#run(options.signal, (pool) =>
      this.#transaction(pool, "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", async (client) => {
        const episodes = await PostgresStoreCore.#query<EpisodeRow>(client, {
          name: "shared-ctx-timeline-episodes",
          text: `SELECT ${episodeColumns} FROM episodes WHERE tenant_key = $1 AND subject_id = $2 ORDER BY seq LIMIT $3 OFFSET $4`,
          values: [tenant, subjectId, limit, offset],
        });
        const memories = await PostgresStoreCore.#query<MemoryRow>(client, {
          name: "shared-ctx-timeline-memories",
          text: `SELECT ${memoryColumns} FROM memories m WHERE m.tenant_key = $1 AND m.subject_id = $2 ORDER BY m.mseq LIMIT $3 OFFSET $4`,
          values: [tenant, subjectId, limit, offset],
        });
        return {
          subjectId,
          episodes: episodes.map(episodeFromRow),
          memories: memories.map(memoryFromRow),
        };
      }),
    );
  }

  async listSubjects(
    tenantId: string | null,
    options: ListSubjectsOptions & { signal?: AbortSignal } = {},
  ): Promise<ListSubjectsResult> {
    const limit = requireInteger("limit", options.limit, 1, inputLimits.subjectsLimit, 50);
    const offset = requireOffset("offset", options.offset);
    const tenant = tenantKey(tenantId);
    const subjectsSql = `SELECT s.subject_id, s.episode_count, COALESCE(c.memory_count, 0) AS memory_count
      FROM subjects s LEFT JOIN compile_state c ON c.tenant_key = s.tenant_key AND c.subject_id = s.subject_id
      WHERE s.tenant_key = $1 AND (s.episode_count > 0 OR COALESCE(c.memory_count, 0) > 0)`;
    return this.#run(options.signal, (pool) =>
      this.#transaction(pool, "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", async (client) => {
        const [count] = await PostgresStoreCore.#query<{ total: string }>(client, {
          text: `SELECT count(*) AS total FROM (${subjectsSql}) AS s`,
          values: [tenant],
        });
        const rows = await PostgresStoreCore.#query<{
          subject_id: string;
          episode_count: string;
          memory_count: string;
        }>(client, {
          // COLLATE "C": byte order, as SQLite's (and JavaScript's default sort for ASCII).
          text: `${subjectsSql} ORDER BY s.subject_id COLLATE "C" LIMIT $2 OFFSET $3`,
          values: [tenant, limit, offset],
        });
        return {
          subjects: rows.map((row) => ({
            subjectId: row.subject_id,
            episodeCount: Number(row.episode_count),
            memoryCount: Number(row.memory_count),
          })),
          total: Number(count?.total ?? 0),
        };
      }),
    );
  }

  async deleteSubject(
    tenantId: string | null,
    subjectId: string,
    signal?: AbortSignal,
  ): Promise<DeleteSubjectResult> {
    requireId("subjectId", subjectId, inputLimits.subjectId);
    const tenant = tenantKey(tenantId);
    return this.#run(signal, (pool) =>
      this.#transaction(pool, "BEGIN", async (client) => {
        // Both locks, in the order inserts (subjects) and compiles (compile_state) take them alone.
        // The sequences stay: episodes written later get new, higher seqs, so watchers never
        // mistake a new episode for one they delivered.
        await client.query(
          `SELECT 1 FROM subjects WHERE tenant_key = $1 AND subject_id = $2 FOR UPDATE`,
          [tenant, subjectId],
        );
        await client.query(
          `SELECT 1 FROM compile_state WHERE tenant_key = $1 AND subject_id = $2 FOR UPDATE`,
          [tenant, subjectId],
        );
        const memories = await client.query(
          `DELETE FROM memories WHERE tenant_key = $1 AND subject_id = $2`,
          [tenant, subjectId],
        );
        const episodes = await client.query(
          `DELETE FROM episodes WHERE tenant_key = $1 AND subject_id = $2`,
          [tenant, subjectId],
        );
        await client.query(
          `UPDATE subjects SET episode_count = 0 WHERE tenant_key = $1 AND subject_id = $2`,
          [tenant, subjectId],
        );
        // Compiled up to the last seq handed out: nothing deleted is compiled again.
        await client.query(`DELETE FROM term_stats WHERE tenant_key = $1 AND subject_id = $2`, [
          tenant,
          subjectId,
        ]);
        await client.query(
          `UPDATE compile_state c SET memory_count = 0, active_count = 0, active_tokens = 0, compiled_seq = GREATEST(c.compiled_seq, s.last_seq)
           FROM subjects s WHERE c.tenant_key = $1 AND c.subject_id = $2 AND s.tenant_key = $1 AND s.subject_id = $2`,
          [tenant, subjectId],
        );
        return {
          subjectId,
          episodesDeleted: episodes.rowCount ?? 0,
          memoriesDeleted: memories.rowCount ?? 0,
        };
      }),
    );
  }

  // ---- watch ----------------------------------------------------------------------------------

  watch(
    tenantId: string | null,
    subjectId: string,
    listener: (change: StoreChange) => void,
    options: WatchOptions = {},
  ): Subscription {
    if (this.#closed) throw new StoreClosedError(this.location);
    requireId("subjectId", subjectId, inputLimits.subjectId);
    const tenant = tenantKey(tenantId);
    return this.#hub.watch(tenant, subjectId, changeKey(tenant, subjectId), listener, options);
  }

  /** See `PostgresChangeSource.cursors` (watch-hub.ts): ISO times compare as text. */
  #cursors(tenant: string, subjectId: string, since: string): Promise<WatchCursor> {
    return this.#run(undefined, async (pool) => {
      const [row] = await PostgresStoreCore.#query<{
        episode: string | null;
        memory: string | null;
      }>(pool, {
        name: "shared-ctx-watch-cursors-since",
        text: `SELECT COALESCE(
                        (SELECT MIN(seq) - 1 FROM episodes WHERE tenant_key = $1 AND subject_id = $2 AND created_at >= $3),
                        (SELECT last_seq FROM subjects WHERE tenant_key = $1 AND subject_id = $2)) AS episode,
                      COALESCE(
                        (SELECT MIN(change_seq) - 1 FROM memories WHERE tenant_key = $1 AND subject_id = $2 AND updated_at >= $3),
                        (SELECT memory_change FROM compile_state WHERE tenant_key = $1 AND subject_id = $2)) AS memory`,
        values: [tenant, subjectId, since],
      });
      return { episode: Number(row?.episode ?? 0), memory: Number(row?.memory ?? 0) };
    });
  }

  #changesAfter(
    tenant: string,
    subjectId: string,
    after: WatchCursor,
    limit: number,
  ): Promise<Array<{ change: StoreChange; episode?: number; memory?: number }>> {
    // No closed check of its own: close() closes every hub watcher in the step that sets #closed,
    // and the hub asks only for a watcher it has just seen open.
    return this.#run(undefined, async (pool) => {
      const episodes = await PostgresStoreCore.#query<EpisodeRow>(pool, {
        name: "shared-ctx-watch-episodes",
        text: `SELECT ${episodeColumns} FROM episodes WHERE tenant_key = $1 AND subject_id = $2 AND seq > $3 ORDER BY seq LIMIT $4`,
        values: [tenant, subjectId, after.episode, limit],
      });
      const memories = await PostgresStoreCore.#query<MemoryRow>(pool, {
        name: "shared-ctx-watch-memories",
        text: `SELECT ${memoryColumns} FROM memories m WHERE m.tenant_key = $1 AND m.subject_id = $2 AND m.change_seq > $3 ORDER BY m.change_seq LIMIT $4`,
        values: [tenant, subjectId, after.memory, limit],
      });
      return [
        ...episodes.map((row) => ({
          change: { type: "episode" as const, episode: episodeFromRow(row) },
          episode: Number(row.seq),
        })),
        ...memories.map((row) => ({
          change: { type: "memory" as const, memory: memoryFromRow(row) },
          memory: Number(row.change_seq),
        })),
      ];
    });
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
      closed: () => this.#closed,
      ready: () => this.#connect(),
      onChange,
      onListening: onReconnect,
      onError: (error) => onError(toStoreError(error, this.location)),
    });
  }

  /** Stops watchers, the LISTEN connection and the pool; pending compile jobs are dropped. Idempotent. */
  async close(): Promise<void> {
    // Idempotent without a check: a second call finds the hub's watchers gone and the pool taken.
    this.#closed = true;
    this.#hub.close();
    const pool = this.#pool;
    this.#pool = undefined;
    if (pool)
      await pool.then(
        (ready) => ready.end(),
        () => undefined,
      );
  }
}
