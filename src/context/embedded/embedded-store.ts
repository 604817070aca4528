import type { ContextStore } from "../context-store.js";
import { requireTenantId } from "../validate-input.js";
import { EmbeddedStoreCore } from "./store-core.js";
import { TenantStoreView } from "./tenant-view.js";

/** Options of `EmbeddedStore`. */
export interface EmbeddedStoreOptions {
  /** File path, or ":memory:". Parent folders are created. */
  path: string;
  /** Clock for `createdAt`/`validFrom`/`updatedAt`. @default () => new Date() */
  now?: () => Date;
  /** Ids of episodes, memories and compile jobs. @default crypto.randomUUID */
  generateId?: () => string;
  /** Cross-process watch polling period (`PRAGMA data_version`). @default 25 */
  pollIntervalMs?: number;
  /**
   * Commit concurrent `createEpisode` calls together: the calls made before the event loop's
   * next turn share one transaction, and each promise resolves after it committed (as durable
   * as without it). Worth it for many concurrent writers in one process, as `serve` has; a
   * single awaited writer pays one event-loop turn per create. Batches are unaffected.
   * @default false
   */
  groupCommit?: boolean;
  /**
   * The tenant this instance reads and writes; it still owns (and `close()` closes) the database.
   * @default null (the default tenant)
   */
  tenantId?: string | null;
  /**
   * Run `PRAGMA quick_check` at open, so a damaged file is refused at once (a
   * `StoreDamagedError` naming it) instead of failing on the first read that meets the damage.
   * It reads the whole file (about a second per GB): `serve` turns it on.
   * @default false
   */
  checkIntegrity?: boolean;
  /**
   * How long a write waits for another process's write lock before failing with SQLITE_BUSY.
   * The wait blocks the thread, so a caller with a deadline (an edit hook) keeps it inside that.
   * @default 10000
   */
  busyTimeoutMs?: number;
}

/**
 * The zero-set-up `ContextStore`: a better-sqlite3 database (WAL, busy timeout, versioned
 * migrations) that several processes can share. The instance itself is one tenant (the default);
 * `forTenant(id)` gives views of other tenants over the same handle, each seeing only its rows.
 *
 * @example
 * const store = new EmbeddedStore({ path: ".shared-ctx/store.db" });
 * await store.createEpisode({ subjectId: "run-1", source: "architect", type: "architectural_decision",
 *   payload: { content: "Use RS256 JWTs", target: "auth.token" } });
 * await store.compileMemories("run-1");
 * const bundle = await store.getContext("run-1", "implement login");
 * @throws StoreSchemaError when the file was written by a newer shared-ctx.
 * @throws StoreDamagedError when the file is damaged (not a database, or `checkIntegrity` found problems).
 */
export class EmbeddedStore extends TenantStoreView {
  /** The database file (or ":memory:"). */
  readonly path: string;

  constructor(options: EmbeddedStoreOptions) {
    // The tenant is checked before the file is opened, so a bad one leaks no handle.
    const tenantId = requireTenantId(options.tenantId ?? null);
    super(new EmbeddedStoreCore(options), tenantId);
    this.path = options.path;
  }

  /** A view of the same database scoped to one tenant (null = the default tenant). close() on a view is a no-op. */
  forTenant(tenantId: string | null): ContextStore {
    return new TenantStoreView(this.core, tenantId);
  }

  /** Stops watchers and closes the database. Idempotent. */
  override async close(): Promise<void> {
    this.core.close();
  }
}
