import { createHash, randomUUID } from "node:crypto";
import { createRequire } from "node:module";
import Database from "better-sqlite3";
import {
  compileEpisode,
  compileProfileFacts,
  memoryFromDraft,
  nonMemoryEpisodeTypes,
  type SupersedeCandidate,
  supersedeCandidateOf,
  supersedes,
} from "../compile-memories.js";
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
import { CompileEpisodeError, type SkippedEpisode } from "../errors/compile-episode-error.js";
import { CompileJobNotFoundError } from "../errors/compile-job-not-found-error.js";
import { CompileTimeoutError } from "../errors/compile-timeout-error.js";
import { StoreClosedError } from "../errors/store-closed-error.js";
import { StoreDamagedError } from "../errors/store-damaged-error.js";
import { StoreValidationError } from "../errors/store-validation-error.js";
import { type MemoryCandidate, rankContext, searchTerms, textTerms } from "../rank-context.js";
import { storableDraft } from "../storable-text.js";
import { prepareDbPath } from "../store-location.js";
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
import {
  type CompileJobRow,
  type EpisodeRow,
  episodeFromRow,
  type MemoryRawRow,
  type MemoryRow,
  memoryFromRawRow,
  memoryFromRow,
  memoryRawColumns,
} from "./rows.js";
import { migrate } from "./schema.js";
import { WatchHub } from "./watch-hub.js";

/**
 * better-sqlite3's compiled addon, named by path. The CLI bundle carries better-sqlite3's
 * JavaScript, and naming the addon spares the lookup it otherwise makes through `bindings` (a stack
 * trace and a dozen candidate paths) at every start. Undefined when the addon is elsewhere (a debug
 * build): better-sqlite3 then finds it itself.
 */
const sqliteAddon: string | undefined = (() => {
  try {
    return createRequire(import.meta.url).resolve(
      "better-sqlite3/build/Release/better_sqlite3.node",
    );
  } catch {
    // Elsewhere (a debug build). (Returned below: a `return` here would be a block no test can
    // tell from an empty one, which returns undefined too.)
  }
  return undefined;
})();

/** SQLite's codes for a damaged file: corrupt pages, or not a database at all. */
function isDamaged(error: unknown): error is { code: string } {
  return (
    error instanceof Database.SqliteError &&
    (error.code.startsWith("SQLITE_CORRUPT") || error.code === "SQLITE_NOTADB")
  );
}

/** Options of the embedded store; see `EmbeddedStoreOptions` in `embedded-store.ts`. */
export interface StoreCoreOptions {
  path: string;
  now?: () => Date;
  generateId?: () => string;
  pollIntervalMs?: number;
  /** See `EmbeddedStoreOptions.groupCommit`. @default false */
  groupCommit?: boolean;
  /** See `EmbeddedStoreOptions.checkIntegrity`. @default false */
  checkIntegrity?: boolean;
}

/** A `createEpisode` waiting for the next group commit. */
interface PendingEpisode {
  tenantId: string | null;
  input: ValidEpisodeInput;
  createdAt: string;
  resolve: (episode: Episode) => void;
  reject: (error: unknown) => void;
}

/** How many candidates of each kind `getContext` considers; bounded so it stays fast at 100k. */
const contextCandidates = {
  ftsWindow: 250,
  relevant: 40,
  newest: 40,
  decisions: 30,
  episodes: 10,
} as const;

/**
 * Machinery episode types never shown as "Recent activity": the compile rules' own list, as a SQL
 * literal (fixed identifiers, never user input).
 */
const hiddenEpisodeTypes = `(${[...nonMemoryEpisodeTypes].map((type) => `'${type}'`).join(", ")})`;

/** What the supersede rule needs from an already compiled memory row. */
function supersedeCandidate(row: MemoryRow): SupersedeCandidate {
  return supersedeCandidateOf(row.id, JSON.parse(row.metadata) as JsonObject);
}

/**
 * Why one episode failed to compile, for the client: the error's class and, for SQLite, its
 * code, never the driver's message (which can quote SQL and internal names).
 */
function compileFailureReason(error: unknown): string {
  if (error instanceof Database.SqliteError) {
    return `the database refused its memory (${error.code})`;
  }
  const name = error instanceof Error ? error.name : typeof error;
  return `an internal error while compiling it (${name})`;
}

/** JSON text of a payload/metadata/provenance object; a value JSON cannot hold is a validation error. */
function toJsonText(field: string, value: JsonObject): string {
  try {
    return JSON.stringify(value);
  } catch {
    // BigInt or a cycle: reject the input rather than fail half-way with a TypeError.
    throw new StoreValidationError(field, "a JSON-serialisable object");
  }
}

/**
 * The FTS prefix of one (tenant, subject): 22 letters/digits, so `prefix + word` is one token
 * for the unicode61 tokenizer and cannot collide with another subject's words.
 */
function scopePrefix(tenantId: string | null, subjectId: string): string {
  const key = `${tenantId === null ? "0" : `1${tenantId}`}\u0000${subjectId}`;
  return scopePrefixes.get(key) ?? newScopePrefix(key);
}
const scopePrefixes = new Map<string, string>();

/** Hashes the key of {@link scopePrefix} and keeps the prefix for the next read. */
function newScopePrefix(key: string): string {
  const prefix = `s${createHash("sha256").update(key).digest("hex").slice(0, 20)}x`;
  // A hash per context read is measurable; the subjects in use are few, so forget them all
  // once there are many rather than track which were used last.
  if (scopePrefixes.size >= 1000) scopePrefixes.clear();
  scopePrefixes.set(key, prefix);
  return prefix;
}

/** A memory row as `getContext` read it, with its search words (see `#contextRows`). */
interface ContextRow {
  readonly row: MemoryRawRow;
  readonly terms: ReadonlySet<string>;
  /** Characters held (content, summary, metadata, …): what the cache's budget counts. */
  readonly size: number;
}

/** How many characters of memory rows `getContext` keeps parsed (about 2 bytes each). */
const contextRowBudget = 8_000_000;

/** What the FTS index holds for one memory: its words, each prefixed with the subject scope. */
function scopedTerms(prefix: string, content: string): string {
  return textTerms(content)
    .map((term) => prefix + term)
    .join(" ");
}

/**
 * The embedded store's engine: one better-sqlite3 handle shared by every tenant view. Every
 * method takes the tenant explicitly and every query filters on it (`tenant_id IS ?`, so the
 * default tenant `null` only ever matches its own rows).
 */
export class EmbeddedStoreCore {
  readonly path: string;
  readonly #db: Database.Database;
  readonly #now: () => Date;
  readonly #generateId: () => string;
  readonly #hub: WatchHub;
  readonly #statements = new Map<string, Database.Statement>();
  readonly #jobs = new Map<string, Promise<void>>();
  /** Whether `createEpisode` through a tenant view waits for a group commit. */
  readonly groupCommit: boolean;
  #pending: PendingEpisode[] = [];
  #flushScheduled = false;
  #closed = false;
  /**
   * Active memory rows `getContext` has read, by seq, with their search words: reading and
   * tokenising the candidate rows was most of a context's cost, and the same rows are candidates
   * again and again. Never stale, without any invalidation: an active row is never updated in
   * place (the one UPDATE of `memories` supersedes it, and every read re-checks `status`), and a
   * seq is never reused (AUTOINCREMENT), whichever process writes. Oldest first out, by size.
   */
  readonly #contextRows = new Map<number, ContextRow>();
  #contextRowChars = 0;

  constructor(options: StoreCoreOptions) {
    this.path = options.path;
    this.#now = options.now ?? (() => new Date());
    this.#generateId = options.generateId ?? randomUUID;
    this.groupCommit = options.groupCommit ?? false;
    const inMemory = options.path === ":memory:" || options.path === "";
    if (!inMemory) prepareDbPath(options.path);
    this.#db = new Database(options.path, sqliteAddon ? { nativeBinding: sqliteAddon } : {});
    try {
      // WAL: readers never block the writer, and several processes can share the file.
      this.#db.pragma("journal_mode = WAL");
      // Several processes write one file: wait for the lock instead of failing with SQLITE_BUSY.
      this.#db.pragma("busy_timeout = 10000");
      // NORMAL is durable against a crash of the *process* (SIGKILL, an exception): a committed
      // transaction is in the WAL file, which the OS keeps. Only an OS crash or power loss can
      // lose the last commits (they are fsynced at checkpoint, not per commit). That is the
      // promise of the issue ("survives a crash of the process") at a fraction of FULL's cost.
      this.#db.pragma("synchronous = NORMAL");
      // 16 MiB of page cache (the default is 2 MiB): the subject indexes stay in memory.
      this.#db.pragma("cache_size = -16000");
      if (options.checkIntegrity && !inMemory) this.#checkIntegrity(options.path);
      migrate(this.#db, options.path);
    } catch (error) {
      this.#db.close();
      throw isDamaged(error)
        ? new StoreDamagedError(options.path, error.code, { cause: error })
        : error;
    }
    this.#hub = new WatchHub(
      {
        cursors: (tenantId, subjectId) => this.#cursors(tenantId, subjectId),
        changesAfter: (tenantId, subjectId, after, limit) =>
          this.#changesAfter(tenantId, subjectId, after, limit),
        dataVersion: () => Number(this.#db.pragma("data_version", { simple: true })),
      },
      { pollIntervalMs: options.pollIntervalMs ?? 25, crossProcess: !inMemory },
    );
  }

  /**
   * `PRAGMA quick_check`: a file damaged mid-way opens, and fails only on the read that meets the
   * damage. quick_check reads every page once (about a second per GB), so `serve` runs it at
   * start, not every command.
   * @throws StoreDamagedError naming the file and the first problems found
   */
  #checkIntegrity(path: string): void {
    const problems = this.#db.pragma("quick_check(5)", { simple: false }) as Array<{
      quick_check: string;
    }>;
    const found = problems.map((row) => row.quick_check).filter((line) => line !== "ok");
    if (found.length > 0) throw new StoreDamagedError(path, found.join("; ").slice(0, 500));
  }

  /** Prepared once, reused for the life of the handle. */
  #statement<Row = unknown>(sql: string): Database.Statement<unknown[], Row> {
    const statement = this.#statements.get(sql) ?? this.#prepare(sql);
    return statement as Database.Statement<unknown[], Row>;
  }

  #prepare(sql: string): Database.Statement {
    const statement = this.#db.prepare(sql);
    this.#statements.set(sql, statement);
    return statement;
  }

  #open(signal?: AbortSignal): void {
    if (this.#closed) throw new StoreClosedError(this.path);
    signal?.throwIfAborted();
  }

  #timestamp(): string {
    return this.#now().toISOString();
  }

  // ---- episodes -------------------------------------------------------------------------------

  #insertEpisode(
    tenantId: string | null,
    input: ValidEpisodeInput,
    createdAt: string,
    field: string,
  ): Episode {
    const payload = toJsonText(`${field}payload`, input.payload);
    const metadata = toJsonText(`${field}metadata`, input.metadata);
    const provenance = toJsonText(`${field}provenance`, input.provenance);
    if (input.idempotencyKey !== null) {
      // A key the subject has: the first episode stands, nothing is written (the callers hold
      // the write lock, so no other process can add the key between this read and the insert).
      const first = this.#statement<EpisodeRow>(
        `SELECT * FROM episodes WHERE (tenant_id IS NULL) = ? AND ifnull(tenant_id, '') = ?
           AND subject_id = ? AND idempotency_key = ?`,
      ).get(tenantId === null ? 1 : 0, tenantId ?? "", input.subjectId, input.idempotencyKey);
      if (first) return episodeFromRow(first);
    }
    const id = this.#generateId();
    // created_at never goes backwards along seq: two processes take their clocks before the write
    // lock, so the later insert can carry the earlier time. One statement reads the subject's last
    // created_at and inserts (atomic under SQLite's write lock), as Postgres does with GREATEST.
    // ISO strings of one format compare as their times do.
    const stored = this.#statement<{ created_at: string }>(
      `INSERT INTO episodes (id, tenant_id, subject_id, source, type, payload, metadata, provenance, session_id, created_at, idempotency_key)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?,
         max(?, ifnull((SELECT created_at FROM episodes WHERE tenant_id IS ? AND subject_id = ?
                        ORDER BY seq DESC LIMIT 1), '')),
         ?)
       RETURNING created_at`,
    ).get(
      id,
      tenantId,
      input.subjectId,
      input.source,
      input.type,
      payload,
      metadata,
      provenance,
      input.sessionId,
      createdAt,
      tenantId,
      input.subjectId,
      input.idempotencyKey,
    );
    const storedAt = stored?.created_at ?? createdAt;
    return {
      id,
      subjectId: input.subjectId,
      source: input.source,
      type: input.type,
      // Parsed back from the stored text: the caller gets exactly what a later read returns,
      // and later changes to its own objects never alter it.
      payload: JSON.parse(payload),
      metadata: JSON.parse(metadata),
      provenance: JSON.parse(provenance),
      sessionId: input.sessionId,
      createdAt: storedAt,
    };
  }

  createEpisode(tenantId: string | null, input: CreateEpisodeInput, signal?: AbortSignal): Episode {
    this.#open(signal);
    const valid = validateEpisodeInput(input);
    const createdAt = this.#timestamp();
    // Autocommit: the insert is its own transaction, committed when run() returns. A keyed one
    // reads before it writes: IMMEDIATE takes the write lock first, so the read stays true.
    const episode =
      valid.idempotencyKey === null
        ? this.#insertEpisode(tenantId, valid, createdAt, "")
        : this.#db
            .transaction(() => this.#insertEpisode(tenantId, valid, createdAt, ""))
            .immediate();
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
    input: CreateEpisodeInput,
    signal?: AbortSignal,
  ): Promise<Episode> {
    this.#open(signal);
    const valid = validateEpisodeInput(input);
    const createdAt = this.#timestamp();
    return new Promise<Episode>((resolve, reject) => {
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
    let outcomes: Array<{ episode: Episode } | { error: unknown }>;
    try {
      const write = this.#db.transaction(() =>
        group.map((item) => {
          try {
            return { episode: this.#insertEpisode(item.tenantId, item.input, item.createdAt, "") };
          } catch (error) {
            // A payload JSON cannot hold fails before its INSERT: only that create is refused.
            if (error instanceof StoreValidationError) return { error };
            // A database error may have rolled the transaction back already (SQLITE_BUSY,
            // SQLITE_FULL): fail the whole group, so nothing is half-written or acknowledged.
            throw error;
          }
        }),
      );
      // Keyed creates read before they write: take the write lock first (see createEpisode).
      outcomes = group.some((item) => item.input.idempotencyKey !== null)
        ? write.immediate()
        : write();
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
    inputs: CreateEpisodeInput[],
    signal?: AbortSignal,
  ): { episodesCreated: number; episodes: Episode[] } {
    this.#open(signal);
    const valid = validateEpisodeBatch(inputs);
    const createdAt = this.#timestamp();
    const write = this.#db.transaction(() =>
      valid.map((input, index) =>
        this.#insertEpisode(tenantId, input, createdAt, `episodes[${index}].`),
      ),
    );
    // Keyed items read before they write: take the write lock first (see createEpisode).
    const episodes = valid.some((input) => input.idempotencyKey !== null)
      ? write.immediate()
      : write();
    for (const subjectId of new Set(episodes.map((episode) => episode.subjectId))) {
      this.#hub.notify(tenantId, subjectId);
    }
    return { episodesCreated: episodes.length, episodes };
  }

  // ---- compile --------------------------------------------------------------------------------

  compileMemories(tenantId: string | null, subjectId: string, signal?: AbortSignal): CompileResult {
    this.#open(signal);
    requireId("subjectId", subjectId, inputLimits.subjectId);
    // IMMEDIATE takes the write lock before reading the uncompiled episodes, so two processes
    // compiling the same subject at once never both turn one episode into a memory.
    const { memories, skipped } = this.#db
      .transaction(() => this.#compileLocked(tenantId, subjectId))
      .immediate();
    if (memories.length > 0) this.#hub.notify(tenantId, subjectId);
    if (skipped.length > 0) {
      throw new CompileEpisodeError(subjectId, skipped.slice(0, 20), memories.length);
    }
    return { subjectId, memoriesCreated: memories.length, memories };
  }

  #compileLocked(
    tenantId: string | null,
    subjectId: string,
  ): { memories: Memory[]; skipped: SkippedEpisode[] } {
    // Pages of episodes, so a 100k-episode subject is never loaded whole.
    const readPage = (after: number) =>
      this.#statement<EpisodeRow>(
        `SELECT * FROM episodes WHERE tenant_id IS ? AND subject_id = ? AND seq > ? ORDER BY seq LIMIT 1000`,
      ).all(tenantId, subjectId, after);
    let page = readPage(this.#compiledUpTo(tenantId, subjectId));
    if (page.length === 0) return { memories: [], skipped: [] };
    let compiledSeq = 0;
    const now = this.#timestamp();
    const counter = this.#statement<{ value: number }>(
      `SELECT value FROM counters WHERE name = 'memory_change'`,
    ).get();
    let changeSeq = counter?.value ?? 0;
    const scope = scopePrefix(tenantId, subjectId);
    const created = new Map<string, Memory>();
    const skipped: SkippedEpisode[] = [];

    // ORDER BY seq: the contradiction list must come out the same on every compile.
    const findSameTarget = this.#statement<MemoryRow>(
      `SELECT * FROM memories WHERE tenant_id IS ? AND subject_id = ? AND kind = ? AND target = ? AND status = 'active' ORDER BY seq`,
    );
    const supersede = this.#statement(
      `UPDATE memories SET status = 'superseded', valid_to = ?, updated_at = ?, change_seq = ? WHERE seq = ?`,
    );
    const unindex = this.#statement(`DELETE FROM memory_fts WHERE rowid = ?`);
    const insertMemory = this.#statement(
      `INSERT INTO memories (id, tenant_id, subject_id, kind, target, content, summary, confidence, valid_from,
         valid_to, source_episode_ids, metadata, status, created_at, updated_at, change_seq)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, NULL, ?, ?, 'active', ?, ?, ?)`,
    );
    const index = this.#statement(`INSERT INTO memory_fts (rowid, terms) VALUES (?, ?)`);

    /** One episode's memory (and the supersedes it causes), in a savepoint of its own. */
    const compileOne = this.#db.transaction((row: EpisodeRow) => {
      // Storable as on Postgres: both stores compile one episode to the same memory.
      const draft = storableDraft(
        compileEpisode({
          type: row.type,
          source: row.source,
          payload: JSON.parse(row.payload),
          provenance: JSON.parse(row.provenance),
          metadata: JSON.parse(row.metadata),
        }),
      );
      if (!draft) return undefined;
      const validFrom = row.created_at;
      const contradicted: string[] = [];
      const supersededIds: string[] = [];
      if (draft.target !== null) {
        for (const old of findSameTarget.all(tenantId, subjectId, draft.kind, draft.target)) {
          // Only a write made knowing the older memory replaces it; otherwise both stay
          // active and the disagreement is recorded, so nobody silently wins.
          if (!supersedes(draft, supersedeCandidate(old))) {
            contradicted.push(old.id);
            continue;
          }
          changeSeq += 1;
          supersede.run(validFrom, now, changeSeq, old.seq);
          unindex.run(old.seq);
          supersededIds.push(old.id);
        }
      }
      changeSeq += 1;
      const memory = memoryFromDraft(draft, {
        id: this.#generateId(),
        subjectId,
        episodeId: row.id,
        validFrom,
        now: now,
        contradicted,
      });
      const result = insertMemory.run(
        memory.id,
        tenantId,
        subjectId,
        memory.kind,
        draft.target,
        memory.content,
        memory.summary,
        memory.confidence,
        validFrom,
        JSON.stringify(memory.sourceEpisodeIds),
        JSON.stringify(memory.metadata),
        now,
        now,
        changeSeq,
      );
      index.run(result.lastInsertRowid, scopedTerms(scope, memory.content));
      // A conversation's profile facts, beside its summary (Statewave's kinds): no target, so
      // they supersede nothing.
      const facts = compileProfileFacts({
        type: row.type,
        source: row.source,
        payload: JSON.parse(row.payload),
      }).flatMap((found) => {
        // The same text rule as the summary's (U+0000 dropped), on every store.
        const fact = storableDraft(found);
        if (!fact) return [];
        changeSeq += 1;
        const factMemory = memoryFromDraft(fact, {
          id: this.#generateId(),
          subjectId,
          episodeId: row.id,
          validFrom,
          now,
          contradicted: [],
        });
        const inserted = insertMemory.run(
          factMemory.id,
          tenantId,
          subjectId,
          factMemory.kind,
          null,
          factMemory.content,
          factMemory.summary,
          factMemory.confidence,
          validFrom,
          JSON.stringify(factMemory.sourceEpisodeIds),
          JSON.stringify(factMemory.metadata),
          now,
          now,
          changeSeq,
        );
        index.run(inserted.lastInsertRowid, scopedTerms(scope, factMemory.content));
        return [factMemory];
      });
      return { memory, supersededIds, validFrom, facts };
    });

    for (; page.length > 0; page = readPage(compiledSeq)) {
      for (const row of page) {
        compiledSeq = row.seq;
        let compiled: ReturnType<typeof compileOne>;
        try {
          compiled = compileOne(row);
        } catch (error) {
          // SQLite rolled the whole transaction back (SQLITE_BUSY, SQLITE_FULL): not this
          // episode's fault, and nothing to go on with. The compile fails; nothing is skipped.
          if (!this.#db.inTransaction) throw error;
          // The savepoint rolled this episode back. It is skipped for good (the compile mark
          // moves past it), so one episode can never poison its subject: the rest compile now,
          // and later episodes on every later compile.
          skipped.push({ episodeId: row.id, type: row.type, reason: compileFailureReason(error) });
          continue;
        }
        if (!compiled) continue;
        for (const id of compiled.supersededIds) {
          const sameCall = created.get(id);
          if (sameCall) {
            sameCall.status = "superseded";
            sameCall.validTo = compiled.validFrom;
            sameCall.updatedAt = now;
          }
        }
        created.set(compiled.memory.id, compiled.memory);
        for (const fact of compiled.facts) created.set(fact.id, fact);
      }
    }
    const marked = this.#statement(
      `UPDATE compile_marks SET compiled_seq = ? WHERE tenant_id IS ? AND subject_id = ?`,
    ).run(compiledSeq, tenantId, subjectId);
    if (marked.changes === 0) {
      this.#statement(
        `INSERT INTO compile_marks (tenant_id, subject_id, compiled_seq) VALUES (?, ?, ?)`,
      ).run(tenantId, subjectId, compiledSeq);
    }
    this.#statement(`UPDATE counters SET value = ? WHERE name = 'memory_change'`).run(changeSeq);
    return { memories: [...created.values()], skipped };
  }

  /** The seq of the last episode compile has seen for the subject (0: none yet). */
  #compiledUpTo(tenantId: string | null, subjectId: string): number {
    return (
      this.#statement<{ seq: number }>(
        `SELECT compiled_seq AS seq FROM compile_marks WHERE tenant_id IS ? AND subject_id = ?`,
      ).get(tenantId, subjectId)?.seq ?? 0
    );
  }

  compileMemoriesAsync(
    tenantId: string | null,
    subjectId: string,
    signal?: AbortSignal,
  ): CompileJob {
    this.#open(signal);
    requireId("subjectId", subjectId, inputLimits.subjectId);
    const jobId = this.#generateId();
    const now = this.#timestamp();
    this.#statement(
      `INSERT INTO compile_jobs (job_id, tenant_id, subject_id, status, created_at, updated_at) VALUES (?, ?, ?, 'pending', ?, ?)`,
    ).run(jobId, tenantId, subjectId, now, now);
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
    const setStatus = this.#statement(
      `UPDATE compile_jobs SET status = ?, memories_created = ?, memory_ids = ?, error = ?, updated_at = ? WHERE job_id = ?`,
    );
    try {
      setStatus.run("running", null, null, null, this.#timestamp(), jobId);
      const result = this.compileMemories(tenantId, subjectId);
      const ids = JSON.stringify(result.memories.map((memory) => memory.id));
      setStatus.run("completed", result.memoriesCreated, ids, null, this.#timestamp(), jobId);
    } catch (error) {
      if (this.#closed) return;
      // Our own errors say what happened in words; anything else is named, never quoted.
      const message =
        error instanceof CompileEpisodeError || error instanceof StoreValidationError
          ? error.message
          : error instanceof Database.SqliteError
            ? `compile failed: the database failed (${error.code})`
            : `compile failed: an internal error (${error instanceof Error ? error.name : typeof error})`;
      try {
        setStatus.run("failed", null, null, message, this.#timestamp(), jobId);
      } catch {
        // The database itself is failing (e.g. locked past the busy timeout): the job stays
        // "running" for pollers, and a throw here would crash the process from setImmediate.
      }
    }
  }

  getCompileStatus(tenantId: string | null, jobId: string, signal?: AbortSignal): CompileJob {
    this.#open(signal);
    const row =
      typeof jobId === "string"
        ? this.#statement<CompileJobRow>(
            `SELECT * FROM compile_jobs WHERE job_id = ? AND tenant_id IS ?`,
          ).get(jobId, tenantId)
        : undefined;
    if (!row) throw new CompileJobNotFoundError(String(jobId));
    const job: CompileJob = {
      jobId: row.job_id,
      status: row.status as CompileJob["status"],
      subjectId: row.subject_id,
    };
    if (row.status === "completed") {
      job.memoriesCreated = row.memories_created ?? 0;
      job.memories = this.#statement<MemoryRow>(
        `SELECT m.* FROM json_each(?) AS j JOIN memories m ON m.id = j.value ORDER BY m.seq`,
      )
        .all(row.memory_ids ?? "[]")
        .map(memoryFromRow);
    }
    if (row.status === "failed") {
      job.error = row.error ?? "compile failed";
    }
    return job;
  }

  async compileMemoriesWait(
    tenantId: string | null,
    subjectId: string,
    options: CompileWaitOptions = {},
  ): Promise<CompileJob> {
    const started = this.compileMemoriesAsync(tenantId, subjectId, options.signal);
    const timeoutMs = options.timeoutMs ?? 60_000;
    const pollIntervalMs = options.pollIntervalMs ?? 500;
    // Monotonic: a wall-clock jump must not end (or stretch) the wait.
    const deadline = performance.now() + timeoutMs;
    for (;;) {
      const job = this.getCompileStatus(tenantId, started.jobId, options.signal);
      if (job.status === "completed" || job.status === "failed") return job;
      const remaining = deadline - performance.now();
      if (remaining <= 0) throw new CompileTimeoutError(started.jobId, timeoutMs);
      // In this process the job's own promise says when it is done; poll only as a fallback.
      const running = this.#jobs.get(started.jobId);
      await waitForJob(
        running,
        running ? remaining : Math.min(pollIntervalMs, remaining),
        options.signal,
      );
    }
  }

  // ---- reads ----------------------------------------------------------------------------------

  searchMemories(
    tenantId: string | null,
    subjectId: string,
    options: SearchMemoriesOptions & { signal?: AbortSignal } = {},
  ): Memory[] {
    this.#open(options.signal);
    requireId("subjectId", subjectId, inputLimits.subjectId);
    const { limit, kind, q } = validateSearchOptions(options);
    const filters = ["tenant_id IS ?", "subject_id = ?", "status = 'active'"];
    const parameters: unknown[] = [tenantId, subjectId];
    if (kind !== undefined) {
      filters.push("kind = ?");
      parameters.push(kind);
    }
    if (q !== undefined) {
      // instr, not LIKE: '%' and '_' in q are literal text here. lower() folds ASCII only.
      filters.push("instr(lower(content), lower(?)) > 0");
      parameters.push(q);
    }
    return this.#statement<MemoryRow>(
      `SELECT * FROM memories WHERE ${filters.join(" AND ")} ORDER BY seq DESC LIMIT ?`,
    )
      .all(...parameters, limit)
      .map(memoryFromRow);
  }

  getContext(
    tenantId: string | null,
    subjectId: string,
    task: string,
    options: GetContextOptions & { signal?: AbortSignal } = {},
  ): ContextBundle {
    this.#open(options.signal);
    requireId("subjectId", subjectId, inputLimits.subjectId);
    requireSearchText("task", task, inputLimits.task);
    const maxTokens = requireInteger(
      "maxTokens",
      options.maxTokens,
      1,
      inputLimits.maxTokens,
      4000,
    );
    const read = this.#db.transaction(() => {
      const rankBySeq = new Map<number, number>();
      const terms = searchTerms(task);
      if (terms.length > 0) {
        const prefix = scopePrefix(tenantId, subjectId);
        const match = terms.map((term) => `"${prefix}${term}"`).join(" OR ");
        // bm25 over the newest `ftsWindow` matches only: walking the match list in rowid order
        // stops early, so the cost stays bounded however large the subject grows. Older
        // memories still compete through the "newest decisions" candidates.
        const window = this.#statement<{ seq: number; rank: number }>(
          `SELECT rowid AS seq, bm25(memory_fts) AS rank FROM memory_fts
           WHERE memory_fts MATCH ? ORDER BY rowid DESC LIMIT ?`,
        ).all(match, contextCandidates.ftsWindow);
        // The sort is stable and the window comes newest first: equal ranks stay newest first.
        const best = window
          .sort((left, right) => left.rank - right.rank)
          .slice(0, contextCandidates.relevant);
        for (const row of best) rankBySeq.set(row.seq, row.rank);
      }
      // Candidate sequences first, whole rows once: the three candidate lists overlap, and
      // reading (and parsing) each row only once is most of what a context costs.
      const sequences = new Set(rankBySeq.keys());
      const newestSeqs = this.#statement<{ seq: number }>(
        `SELECT seq FROM memories WHERE tenant_id IS ? AND subject_id = ? AND status = 'active' ORDER BY seq DESC LIMIT ?`,
      );
      for (const row of newestSeqs.all(tenantId, subjectId, contextCandidates.newest)) {
        sequences.add(row.seq);
      }
      const decisionSeqs = this.#statement<{ seq: number }>(
        `SELECT seq FROM memories WHERE tenant_id IS ? AND subject_id = ? AND status = 'active'
           AND kind = 'architectural_decision' ORDER BY seq DESC LIMIT ?`,
      );
      for (const row of decisionSeqs.all(tenantId, subjectId, contextCandidates.decisions)) {
        sequences.add(row.seq);
      }
      // The FTS rows are only ever this subject's (scoped terms), and only active memories are
      // indexed; the filters keep it exact anyway.
      const activeSeqs = this.#statement<number>(
        `SELECT seq FROM memories WHERE seq IN (SELECT value FROM json_each(?))
           AND tenant_id IS ? AND subject_id = ? AND status = 'active'`,
      )
        .pluck(true)
        .all(JSON.stringify([...sequences]), tenantId, subjectId);
      const rows = this.#contextRowsOf(activeSeqs);
      // Fresh objects from the kept strings on every read: the caller may change what it gets.
      const memories: MemoryCandidate[] = rows.map(({ row, terms }) => ({
        memory: memoryFromRawRow(row),
        sequence: row[0],
        bm25: rankBySeq.get(row[0]) ?? null,
        terms,
      }));
      const episodes = this.#statement<EpisodeRow>(
        `SELECT * FROM episodes WHERE tenant_id IS ? AND subject_id = ? AND seq > ?
           AND type NOT IN ${hiddenEpisodeTypes} ORDER BY seq DESC LIMIT ?`,
      )
        .all(
          tenantId,
          subjectId,
          this.#compiledUpTo(tenantId, subjectId),
          contextCandidates.episodes,
        )
        .map((row) => ({ episode: episodeFromRow(row), sequence: row.seq }));
      return { memories, episodes };
    })();
    return rankContext({ subjectId, task, maxTokens, ...read });
  }

  /** The rows of these active memories' seqs, from `#contextRows` or read (and kept) now. */
  #contextRowsOf(seqs: readonly number[]): ContextRow[] {
    const missing = seqs.filter((seq) => !this.#contextRows.has(seq));
    if (missing.length > 0) {
      const read = this.#statement(
        `SELECT ${memoryRawColumns} FROM memories WHERE seq IN (SELECT value FROM json_each(?))`,
      ).raw(true);
      for (const row of read.all(JSON.stringify(missing)) as MemoryRawRow[]) {
        const size = row.reduce<number>(
          (total, value) => total + (typeof value === "string" ? value.length : 8),
          0,
        );
        this.#contextRows.set(row[0], { row, terms: new Set(textTerms(row[4])), size });
        this.#contextRowChars += size;
      }
    }
    const rows: ContextRow[] = [];
    for (const seq of seqs) {
      const kept = this.#contextRows.get(seq);
      if (kept) rows.push(kept);
    }
    // After the rows of this read are taken: they are returned even when over the budget.
    for (const [seq, kept] of this.#contextRows) {
      if (this.#contextRowChars <= contextRowBudget) break;
      this.#contextRows.delete(seq);
      this.#contextRowChars -= kept.size;
    }
    return rows;
  }

  getTimeline(
    tenantId: string | null,
    subjectId: string,
    options: TimelineOptions & { signal?: AbortSignal } = {},
  ): Timeline {
    this.#open(options.signal);
    requireId("subjectId", subjectId, inputLimits.subjectId);
    const limit = requireInteger("limit", options.limit, 0, inputLimits.timelineLimit, 100);
    const offset = requireOffset("offset", options.offset);
    // One read transaction: episodes and memories from the same snapshot.
    return this.#db.transaction(() => ({
      subjectId,
      episodes: this.#statement<EpisodeRow>(
        `SELECT * FROM episodes WHERE tenant_id IS ? AND subject_id = ? ORDER BY seq LIMIT ? OFFSET ?`,
      )
        .all(tenantId, subjectId, limit, offset)
        .map(episodeFromRow),
      memories: this.#statement<MemoryRow>(
        `SELECT * FROM memories WHERE tenant_id IS ? AND subject_id = ? ORDER BY seq LIMIT ? OFFSET ?`,
      )
        .all(tenantId, subjectId, limit, offset)
        .map(memoryFromRow),
    }))();
  }

  listSubjects(
    tenantId: string | null,
    options: ListSubjectsOptions & { signal?: AbortSignal } = {},
  ): ListSubjectsResult {
    this.#open(options.signal);
    const limit = requireInteger("limit", options.limit, 1, inputLimits.subjectsLimit, 50);
    const offset = requireOffset("offset", options.offset);
    const subjectsSql = `SELECT DISTINCT subject_id FROM episodes WHERE tenant_id IS @tenant
      UNION SELECT DISTINCT subject_id FROM memories WHERE tenant_id IS @tenant`;
    return this.#db.transaction(() => {
      const total =
        this.#statement<{ total: number }>(`SELECT count(*) AS total FROM (${subjectsSql})`).get({
          tenant: tenantId,
        })?.total ?? 0;
      const rows = this.#statement<{
        subject_id: string;
        episode_count: number;
        memory_count: number;
      }>(
        `SELECT s.subject_id,
           (SELECT count(*) FROM episodes e WHERE e.tenant_id IS @tenant AND e.subject_id = s.subject_id) AS episode_count,
           (SELECT count(*) FROM memories m WHERE m.tenant_id IS @tenant AND m.subject_id = s.subject_id) AS memory_count
         FROM (${subjectsSql}) AS s ORDER BY s.subject_id LIMIT @limit OFFSET @offset`,
      ).all({ tenant: tenantId, limit, offset });
      return {
        subjects: rows.map((row) => ({
          subjectId: row.subject_id,
          episodeCount: row.episode_count,
          memoryCount: row.memory_count,
        })),
        total,
      };
    })();
  }

  deleteSubject(
    tenantId: string | null,
    subjectId: string,
    signal?: AbortSignal,
  ): DeleteSubjectResult {
    this.#open(signal);
    requireId("subjectId", subjectId, inputLimits.subjectId);
    const result = this.#db
      .transaction(() => {
        this.#statement(
          `DELETE FROM memory_fts WHERE rowid IN (SELECT seq FROM memories WHERE tenant_id IS ? AND subject_id = ?)`,
        ).run(tenantId, subjectId);
        const memories = this.#statement(
          `DELETE FROM memories WHERE tenant_id IS ? AND subject_id = ?`,
        ).run(tenantId, subjectId).changes;
        const episodes = this.#statement(
          `DELETE FROM episodes WHERE tenant_id IS ? AND subject_id = ?`,
        ).run(tenantId, subjectId).changes;
        return { subjectId, episodesDeleted: episodes, memoriesDeleted: memories };
      })
      .immediate();
    this.#hub.reset(tenantId, subjectId);
    return result;
  }

  // ---- watch ----------------------------------------------------------------------------------

  watch(
    tenantId: string | null,
    subjectId: string,
    listener: (change: StoreChange) => void,
    options: WatchOptions = {},
  ): Subscription {
    this.#open();
    requireId("subjectId", subjectId, inputLimits.subjectId);
    return this.#hub.watch(tenantId, subjectId, listener, options);
  }

  #cursors(tenantId: string | null, subjectId: string): { episode: number; memory: number } {
    return this.#db.transaction(() => ({
      // The subject's own newest episode: any later one gets a higher seq (max + 1).
      episode:
        this.#statement<{ seq: number | null }>(
          `SELECT max(seq) AS seq FROM episodes WHERE tenant_id IS ? AND subject_id = ?`,
        ).get(tenantId, subjectId)?.seq ?? 0,
      memory:
        this.#statement<{ value: number }>(
          `SELECT value FROM counters WHERE name = 'memory_change'`,
        ).get()?.value ?? 0,
    }))();
  }

  #changesAfter(
    tenantId: string | null,
    subjectId: string,
    after: { episode: number; memory: number },
    limit: number,
  ): Array<{ change: StoreChange; episode?: number; memory?: number }> {
    if (this.#closed) return [];
    return this.#db.transaction(() => {
      const changes: Array<{ change: StoreChange; episode?: number; memory?: number }> = [];
      for (const row of this.#statement<EpisodeRow>(
        `SELECT * FROM episodes WHERE tenant_id IS ? AND subject_id = ? AND seq > ? ORDER BY seq LIMIT ?`,
      ).all(tenantId, subjectId, after.episode, limit)) {
        changes.push({
          change: { type: "episode", episode: episodeFromRow(row) },
          episode: row.seq,
        });
      }
      for (const row of this.#statement<MemoryRow>(
        `SELECT * FROM memories WHERE tenant_id IS ? AND subject_id = ? AND change_seq > ? ORDER BY change_seq LIMIT ?`,
      ).all(tenantId, subjectId, after.memory, limit)) {
        changes.push({
          change: { type: "memory", memory: memoryFromRow(row) },
          memory: row.change_seq,
        });
      }
      return changes;
    })();
  }

  /** Closes the handle and stops every watcher; pending compile jobs are dropped. Idempotent. */
  close(): void {
    if (this.#closed) return;
    // Episodes already accepted into a group commit are written before the handle closes.
    this.#flushPending();
    this.#closed = true;
    this.#hub.close();
    this.#db.close();
  }
}
