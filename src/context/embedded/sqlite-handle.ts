import { createHash } from "node:crypto";
import { createRequire } from "node:module";
import Database from "better-sqlite3";
import { StoreDamagedError } from "../errors/store-damaged-error.js";
import { prepareDbPath } from "../store-location.js";
import { migrate } from "./schema.js";

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

/** The lock wait when nothing says otherwise: a long write of another process is waited out. */
export const defaultBusyTimeoutMs = 10_000;

/** A whole, non-negative number of milliseconds for `PRAGMA busy_timeout`. */
function busyTimeout(ms: number | undefined): number {
  if (ms === undefined || !Number.isFinite(ms)) return defaultBusyTimeoutMs;
  return Math.max(0, Math.floor(ms));
}

/** Whether a path names an in-memory database (no file, no other process). */
export function isInMemory(path: string): boolean {
  return path === ":memory:" || path === "";
}

/**
 * The embedded store's database handle with its prepared statements: one better-sqlite3
 * connection, tuned and migrated, shared by every part of the store core.
 */
export class SqliteHandle {
  readonly db: Database.Database;
  readonly #statements = new Map<string, Database.Statement>();

  /**
   * Opens (creating parent folders) and migrates the database at `path`.
   * @throws StoreDamagedError when the file is damaged (or `checkIntegrity` finds damage)
   */
  constructor(
    path: string,
    options: { checkIntegrity?: boolean | undefined; busyTimeoutMs?: number | undefined } = {},
  ) {
    const inMemory = isInMemory(path);
    if (!inMemory) prepareDbPath(path);
    this.db = new Database(path, sqliteAddon ? { nativeBinding: sqliteAddon } : {});
    try {
      // WAL: readers never block the writer, and several processes can share the file.
      this.db.pragma("journal_mode = WAL");
      // Several processes write one file: wait for the lock instead of failing with SQLITE_BUSY.
      // The wait is synchronous (no timer can fire meanwhile), so a caller with a time budget (an
      // edit hook) passes a shorter one that fits inside it.
      this.db.pragma(`busy_timeout = ${busyTimeout(options.busyTimeoutMs)}`);
      // NORMAL is durable against a crash of the *process* (SIGKILL, an exception): a committed
      // transaction is in the WAL file, which the OS keeps. Only an OS crash or power loss can
      // lose the last commits (they are fsynced at checkpoint, not per commit). That is the
      // promise of the issue ("survives a crash of the process") at a fraction of FULL's cost.
      this.db.pragma("synchronous = NORMAL");
      // 16 MiB of page cache (the default is 2 MiB): the subject indexes stay in memory.
      this.db.pragma("cache_size = -16000");
      if (options.checkIntegrity && !inMemory) this.#checkIntegrity(path);
      migrate(this.db, path);
    } catch (error) {
      this.db.close();
      throw isDamaged(error) ? new StoreDamagedError(path, error.code, { cause: error }) : error;
    }
  }

  /**
   * `PRAGMA quick_check`: a file damaged mid-way opens, and fails only on the read that meets the
   * damage. quick_check reads every page once (about a second per GB), so `serve` runs it at
   * start, not every command.
   * @throws StoreDamagedError naming the file and the first problems found
   */
  #checkIntegrity(path: string): void {
    const problems = this.db.pragma("quick_check(5)", { simple: false }) as Array<{
      quick_check: string;
    }>;
    const found = problems.map((row) => row.quick_check).filter((line) => line !== "ok");
    if (found.length > 0) throw new StoreDamagedError(path, found.join("; ").slice(0, 500));
  }

  /** Prepared once, reused for the life of the handle. */
  statement<Row = unknown>(sql: string): Database.Statement<unknown[], Row> {
    const statement = this.#statements.get(sql) ?? this.#prepare(sql);
    return statement as Database.Statement<unknown[], Row>;
  }

  #prepare(sql: string): Database.Statement {
    const statement = this.db.prepare(sql);
    this.#statements.set(sql, statement);
    return statement;
  }

  /** `fn` in one transaction (read snapshot or write), as better-sqlite3 runs it. */
  transaction<T>(fn: () => T): T {
    return this.db.transaction(fn)();
  }

  /** `fn` in one write transaction that takes the write lock first (`BEGIN IMMEDIATE`). */
  immediate<T>(fn: () => T): T {
    return this.db.transaction(fn).immediate();
  }

  /** Whether a SQL error rolled the whole transaction back (it is no longer open). */
  get inTransaction(): boolean {
    return this.db.inTransaction;
  }

  /** A number that moves when another connection (process) commits. */
  dataVersion(): number {
    return Number(this.db.pragma("data_version", { simple: true }));
  }

  close(): void {
    this.db.close();
  }
}

/**
 * The FTS prefix of one (tenant, subject): 22 letters/digits, so `prefix + word` is one token
 * for the unicode61 tokenizer and cannot collide with another subject's words.
 */
export function scopePrefix(tenantId: string | null, subjectId: string): string {
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
