import { mkdirSync, type Stats, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { DbPathError } from "./errors/db-path-error.js";
import { StoreValidationError } from "./errors/store-validation-error.js";

/** Options of `createContextStore`; each one overrides its environment variable. */
export interface CreateContextStoreOptions {
  /**
   * Which implementation. @default "postgres" when a database URL is configured, else
   * "statewave" when a server URL is, else "embedded"
   */
  store?: "embedded" | "statewave" | "postgres";
  /**
   * Postgres URL (`postgres://user:password@host:5432/db`): the store lives in that database,
   * shared by every process and `serve` replica that uses it. @default env.SHARED_CTX_DATABASE_URL
   */
  databaseUrl?: string;
  /** Embedded store file (relative to `cwd`), or ":memory:". @default env.SHARED_CTX_DB ?? <cwd>/.shared-ctx/store.db */
  db?: string;
  /** Statewave base URL. @default env.STATEWAVE_URL ?? "http://localhost:8100" */
  url?: string;
  /** Statewave API key. @default env.STATEWAVE_API_KEY */
  apiKey?: string;
  /** Tenant to work in (`X-Tenant-ID`, or an embedded tenant view). @default env.STATEWAVE_TENANT_ID */
  tenantId?: string;
  /** Where the variables above are read. @default process.env */
  env?: Record<string, string | undefined>;
  /** Base of relative paths. @default process.cwd() */
  cwd?: string;
  /**
   * The embedded store's wait for another process's write lock (it blocks the thread): a caller
   * with a deadline keeps it inside that. @default 10000
   */
  busyTimeoutMs?: number;
}

/** Where the embedded store lives when nothing says otherwise. */
export function defaultDbPath(cwd: string): string {
  return join(cwd, ".shared-ctx", "store.db");
}

/** Where the configuration says the store is: a server URL, or an embedded database file. */
export type StoreLocation =
  | { readonly kind: "statewave"; readonly url: string }
  | { readonly kind: "embedded"; readonly path: string }
  | { readonly kind: "postgres"; readonly url: string };

/** The Statewave server a client talks to when neither `url` nor `STATEWAVE_URL` says. */
export const defaultStatewaveUrl = "http://localhost:8100";

/**
 * Resolves the store selection alone, without opening anything: `STATEWAVE_URL` (or `url`, or
 * `store: "statewave"`) means a server; otherwise the embedded file at `db ?? SHARED_CTX_DB ??
 * <cwd>/.shared-ctx/store.db`, relative paths taken from `cwd`. Every command and
 * `createContextStore` resolve through this one function, so they always agree on the file.
 */
export function resolveStoreLocation(
  options: Pick<CreateContextStoreOptions, "store" | "db" | "url" | "databaseUrl"> & {
    env: Readonly<Record<string, string | undefined>>;
    cwd: string;
  },
): StoreLocation {
  const url = options.url ?? (options.env.STATEWAVE_URL || undefined);
  const databaseUrl = options.databaseUrl ?? (options.env.SHARED_CTX_DATABASE_URL || undefined);
  // A database URL selects Postgres, unless an explicit `db`/`url` option asks for another store.
  const postgres =
    options.databaseUrl !== undefined ||
    (databaseUrl !== undefined && options.db === undefined && options.url === undefined);
  const kind = options.store ?? (postgres ? "postgres" : url ? "statewave" : "embedded");
  if (kind === "postgres") {
    if (databaseUrl === undefined) {
      throw new StoreValidationError(
        "databaseUrl",
        "a postgres:// URL (set SHARED_CTX_DATABASE_URL or pass --database-url)",
      );
    }
    return { kind, url: databaseUrl };
  }
  if (kind === "statewave") return { kind, url: url ?? defaultStatewaveUrl };
  return { kind, path: resolveDbPath(options) };
}

/** The embedded database file: `db ?? SHARED_CTX_DB ?? <cwd>/.shared-ctx/store.db`, relative to `cwd`. */
export function resolveDbPath(options: {
  db?: string;
  env: Readonly<Record<string, string | undefined>>;
  cwd: string;
}): string {
  const db = options.db ?? (options.env.SHARED_CTX_DB || undefined);
  if (db === undefined) return defaultDbPath(options.cwd);
  return db === ":memory:" ? db : resolve(options.cwd, db);
}

/** What a store is opened with, as {@link resolveStoreSettings} finds it. */
export type StoreSettings =
  | { readonly kind: "postgres"; readonly url: string; readonly tenantId: string | null }
  | {
      readonly kind: "statewave";
      readonly baseUrl: string;
      readonly apiKey?: string;
      readonly tenantId?: string;
    }
  | {
      readonly kind: "embedded";
      readonly path: string;
      readonly tenantId: string | null;
      readonly busyTimeoutMs?: number;
    };

/**
 * The settings of the store the configuration asks for (see {@link resolveStoreLocation}), without
 * loading any store's code. Reading `process.env`/`process.cwd()` here is the one place
 * `context/` touches the process, and only when `env`/`cwd` are not passed.
 * @throws StoreValidationError when Postgres is selected without a URL
 */
export function resolveStoreSettings(options: CreateContextStoreOptions = {}): StoreSettings {
  const env = options.env ?? process.env;
  const cwd = options.cwd ?? process.cwd();
  const location = resolveStoreLocation({ ...options, env, cwd });
  const tenantId = options.tenantId ?? (env.STATEWAVE_TENANT_ID || undefined);
  if (location.kind === "postgres") {
    return { kind: "postgres", url: location.url, tenantId: tenantId ?? null };
  }
  if (location.kind === "statewave") {
    const apiKey = options.apiKey ?? (env.STATEWAVE_API_KEY || undefined);
    return {
      kind: "statewave",
      baseUrl: location.url,
      ...(apiKey ? { apiKey } : {}),
      ...(tenantId !== undefined ? { tenantId } : {}),
    };
  }
  return {
    kind: "embedded",
    path: location.path,
    tenantId: tenantId ?? null,
    ...(options.busyTimeoutMs !== undefined ? { busyTimeoutMs: options.busyTimeoutMs } : {}),
  };
}

function statOrUndefined(path: string, databasePath: string): Stats | undefined {
  try {
    return statSync(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    // ENOTDIR: a file higher up stands where a folder should be; the walk up finds and names it.
    if (code === "ENOENT" || code === "ENOTDIR") return undefined;
    throw new DbPathError(databasePath, path, `cannot be examined (${String(code)})`, {
      cause: error,
    });
  }
}

/**
 * Makes the folder of an embedded database file exist, checking each level first, and returns the
 * folders it created (outermost first; empty when the folder was there). Missing folders are
 * created, as `mkdir -p` does, but one level at a time: Node's recursive `mkdirSync` spins for ever
 * on a path such as `/proc/nope/x.db` (ENOENT from a folder that exists), deaf to signals.
 * `:memory:` needs nothing.
 * @throws DbPathError naming the folder that is not a folder or cannot be created, or the
 *   database path when it is itself a folder
 */
export function prepareDbPath(path: string): { created: string[] } {
  if (path === ":memory:" || path === "") return { created: [] };
  const own = statOrUndefined(path, path);
  if (own?.isDirectory()) {
    throw new DbPathError(
      path,
      path,
      "is a folder; give a database file inside it (e.g. store.db)",
    );
  }
  const missing: string[] = [];
  let current = dirname(path);
  for (;;) {
    const stats = statOrUndefined(current, path);
    if (stats) {
      if (!stats.isDirectory()) throw new DbPathError(path, current, "is a file, not a folder");
      break;
    }
    missing.unshift(current);
    const parent = dirname(current);
    if (parent === current) break;
    current = parent;
  }
  for (const folder of missing) {
    try {
      mkdirSync(folder);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      // Another process made it meanwhile: fine.
      if (code === "EEXIST" && statOrUndefined(folder, path)?.isDirectory()) continue;
      throw new DbPathError(path, folder, `cannot be created (${String(code)})`, { cause: error });
    }
  }
  return { created: missing };
}
