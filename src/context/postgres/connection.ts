import type { Pool, PoolClient, QueryConfig, QueryResultRow } from "pg";
import { StoreClosedError } from "../errors/store-closed-error.js";
import { redactDatabaseUrl } from "./database-url.js";
import { toStoreError } from "./postgres-errors.js";
import { migrate } from "./schema.js";

/** The SQLSTATE of a driver error (five characters), or undefined for any other error. */
export function sqlState(error: unknown): string | undefined {
  if (typeof error !== "object" || error === null) return undefined;
  const code: unknown = Reflect.get(error, "code");
  return typeof code === "string" && /^[0-9A-Z]{5}$/.test(code) ? code : undefined;
}

/** The insert lost a race for an idempotency key: another request stored it first. */
export function isIdempotencyConflict(error: unknown): boolean {
  return (
    sqlState(error) === "23505" &&
    typeof error === "object" &&
    error !== null &&
    Reflect.get(error, "constraint") === "episodes_idempotency"
  );
}

/** The rows of one query. */
export function queryRows<Row extends QueryResultRow>(
  client: Pick<Pool, "query">,
  config: QueryConfig,
): Promise<Row[]> {
  return client.query<Row>(config).then((result) => result.rows);
}

/** The isolation every read that spans several statements takes: one snapshot for all. */
export const readSnapshot = "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY";

/** How the store reaches its database. */
export interface PostgresConnectionOptions {
  url: string;
  maxConnections: number;
  statementTimeoutMs: number;
}

/**
 * The Postgres store's connection pool: created (and the schema migrated) on first use, every
 * driver error mapped to the store's typed errors, transactions that never leave a broken
 * connection in the pool.
 */
export class PostgresConnection {
  /** The database URL with the password hidden: what errors and logs name. */
  readonly location: string;
  readonly #options: PostgresConnectionOptions;
  #pool: Promise<Pool> | undefined;
  #closed = false;

  constructor(options: PostgresConnectionOptions) {
    this.#options = options;
    this.location = redactDatabaseUrl(options.url);
  }

  /** Whether {@link close} was called. */
  get closed(): boolean {
    return this.#closed;
  }

  /** The pool, created (and the schema migrated) on first use; a failed start is retried next call. */
  connect(): Promise<Pool> {
    this.#pool ??= this.#createPool().catch((error: unknown) => {
      this.#pool = undefined;
      throw toStoreError(error, this.location);
    });
    return this.#pool;
  }

  async #createPool(): Promise<Pool> {
    const { url, maxConnections, statementTimeoutMs } = this.#options;
    // Imported on first use: commands that never touch Postgres never load the driver.
    const { default: pg } = await import("pg");
    const pool = new pg.Pool({
      connectionString: url,
      max: maxConnections,
      // Idle connections must not keep a finished process alive.
      allowExitOnIdle: true,
      // A free connection within the statement timeout (10 s at most), or a 503.
      connectionTimeoutMillis: Math.min(10_000, statementTimeoutMs),
      // The server cancels a statement past the timeout (a slow query, a lock held too long)…
      statement_timeout: statementTimeoutMs,
      // …and the client gives up one second later on a server that does not answer at all
      // (frozen, or a network that drops packets): a prompt 503, never a hang.
      query_timeout: statementTimeoutMs + 1000,
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
  }

  /** Runs `work` with the store open, mapping driver errors to the store's typed errors. */
  async run<T>(signal: AbortSignal | undefined, work: (pool: Pool) => Promise<T>): Promise<T> {
    if (this.#closed) throw new StoreClosedError(this.location);
    signal?.throwIfAborted();
    const pool = await this.connect();
    try {
      return await work(pool);
    } catch (error) {
      if (this.#closed) throw new StoreClosedError(this.location);
      throw toStoreError(error, this.location);
    }
  }

  /** `work` in one transaction opened with `begin`, on a connection of its own. */
  static async transaction<T>(
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

  /** `work` in one transaction with the store open (see {@link run}). */
  runInTransaction<T>(
    signal: AbortSignal | undefined,
    begin: string,
    work: (client: PoolClient) => Promise<T>,
  ): Promise<T> {
    return this.run(signal, (pool) => PostgresConnection.transaction(pool, begin, work));
  }

  /** Marks the store closed and ends the pool. Idempotent. */
  async close(): Promise<void> {
    // Idempotent without a check: a second call finds the pool taken.
    this.#closed = true;
    const pool = this.#pool;
    this.#pool = undefined;
    if (pool)
      await pool.then(
        (ready) => ready.end(),
        () => undefined,
      );
  }
}
