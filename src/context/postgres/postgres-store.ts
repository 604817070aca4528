import type { ContextStore } from "../context-store.js";
import { PostgresStoreCore } from "./store-core.js";
import { PostgresTenantView } from "./tenant-view.js";

/** Options of `PostgresStore`. */
export interface PostgresStoreOptions {
  /** `postgres://user:password@host:5432/database` (any libpq URL `pg` accepts). */
  url: string;
  /**
   * The tenant this instance reads and writes; it still owns (and `close()` closes) the pool.
   * @default null (the default tenant)
   */
  tenantId?: string | null;
  /** Clock for `createdAt`/`validFrom`/`updatedAt`. @default () => new Date() */
  now?: () => Date;
  /** Ids of episodes, memories and compile jobs. @default crypto.randomUUID */
  generateId?: () => string;
  /** Connections in the pool. @default 10 */
  maxConnections?: number;
  /** Fallback catch-up period of watchers, behind LISTEN/NOTIFY. @default 1000 */
  pollIntervalMs?: number;
  /** Wait before reopening a dropped LISTEN connection. @default 500 */
  reconnectDelayMs?: number;
  /**
   * How long one statement may run before the server cancels it, and (one second more) how long
   * the client waits for a server that does not answer at all (stalled, frozen); also the longest
   * wait for a free pooled connection (10 s at most). Past it a call fails with
   * `PostgresConnectionError` (a 503 on `serve`), never hangs. @default 15000
   */
  statementTimeoutMs?: number;
}

/**
 * The `ContextStore` on Postgres: several processes (several `shared-ctx serve` replicas) on one
 * database share one context. Same contract, validation, compile and ranking rules as the
 * embedded store; episodes of a subject are in one total order every replica agrees on; `watch`
 * hears other replicas' writes through LISTEN/NOTIFY. Nothing connects until the first call,
 * which also applies the versioned migrations.
 *
 * @example
 * const store = new PostgresStore({ url: process.env.SHARED_CTX_DATABASE_URL ?? "postgres://localhost/shared_ctx" });
 * await store.createEpisode({ subjectId: "run-1", source: "architect", type: "architectural_decision",
 *   payload: { content: "Use RS256 JWTs", target: "auth.token" } });
 * @throws PostgresConnectionError (from any call) when the server cannot be reached or refuses us.
 * @throws StoreSchemaError when the database was migrated by a newer shared-ctx.
 */
export class PostgresStore extends PostgresTenantView {
  /** The database URL with the password hidden. */
  readonly location: string;

  constructor(options: PostgresStoreOptions) {
    super(new PostgresStoreCore(options), options.tenantId ?? null);
    this.location = this.core.location;
  }

  /**
   * Connects and applies the migrations now, instead of on the first call: a server checks its
   * database before it listens.
   * @throws PostgresConnectionError, StoreSchemaError
   */
  async connect(): Promise<void> {
    await this.core.connect();
  }

  /** A view of the same database scoped to one tenant (null = the default tenant). close() on a view is a no-op. */
  forTenant(tenantId: string | null): ContextStore {
    return new PostgresTenantView(this.core, tenantId);
  }

  /** Stops watchers and closes every connection. Idempotent. */
  override async close(): Promise<void> {
    await this.core.close();
  }
}
