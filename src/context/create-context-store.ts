import { isAbsolute, join, resolve } from "node:path";
import type { ContextStore } from "./context-store.js";
import { EmbeddedStore } from "./embedded-store.js";
import { StatewaveClient } from "./statewave-client.js";

/** Options of {@link createContextStore}; each one overrides its environment variable. */
export interface CreateContextStoreOptions {
  /** Which implementation. @default "statewave" when a URL is configured, else "embedded" */
  store?: "embedded" | "statewave";
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
}

/** Where the embedded store lives when nothing says otherwise. */
export function defaultDbPath(cwd: string): string {
  return join(cwd, ".shared-ctx", "store.db");
}

/**
 * The `ContextStore` the configuration asks for: a `StatewaveClient` when `STATEWAVE_URL` is set
 * (or `store: "statewave"`), otherwise an `EmbeddedStore` at `db ?? SHARED_CTX_DB ??
 * <cwd>/.shared-ctx/store.db`. Reading `process.env`/`process.cwd()` here is the one place
 * `context/` touches the process, and only when `env`/`cwd` are not passed.
 */
export function createContextStore(options: CreateContextStoreOptions = {}): ContextStore {
  const env = options.env ?? process.env;
  const cwd = options.cwd ?? process.cwd();
  const url = options.url ?? (env.STATEWAVE_URL || undefined);
  const tenantId = options.tenantId ?? (env.STATEWAVE_TENANT_ID || undefined);
  const kind = options.store ?? (url ? "statewave" : "embedded");

  if (kind === "statewave") {
    const apiKey = options.apiKey ?? (env.STATEWAVE_API_KEY || undefined);
    return new StatewaveClient({
      ...(url ? { baseUrl: url } : {}),
      ...(apiKey ? { apiKey } : {}),
      ...(tenantId !== undefined ? { tenantId } : {}),
    });
  }

  const db = options.db ?? (env.SHARED_CTX_DB || undefined);
  const path =
    db === undefined
      ? defaultDbPath(cwd)
      : db === ":memory:" || isAbsolute(db)
        ? db
        : resolve(cwd, db);
  const store = new EmbeddedStore({ path });
  return tenantId === undefined ? store : new OwnedTenantView(store, tenantId);
}

/** A tenant view that owns its `EmbeddedStore`: closing it closes the database. */
class OwnedTenantView implements ContextStore {
  readonly #root: EmbeddedStore;
  readonly #view: ContextStore;

  constructor(root: EmbeddedStore, tenantId: string) {
    this.#root = root;
    this.#view = root.forTenant(tenantId);
  }

  createEpisode: ContextStore["createEpisode"] = (...args) => this.#view.createEpisode(...args);
  createEpisodesBatch: ContextStore["createEpisodesBatch"] = (...args) =>
    this.#view.createEpisodesBatch(...args);
  compileMemories: ContextStore["compileMemories"] = (...args) =>
    this.#view.compileMemories(...args);
  compileMemoriesAsync: ContextStore["compileMemoriesAsync"] = (...args) =>
    this.#view.compileMemoriesAsync(...args);
  getCompileStatus: ContextStore["getCompileStatus"] = (...args) =>
    this.#view.getCompileStatus(...args);
  compileMemoriesWait: ContextStore["compileMemoriesWait"] = (...args) =>
    this.#view.compileMemoriesWait(...args);
  searchMemories: ContextStore["searchMemories"] = (...args) => this.#view.searchMemories(...args);
  getContext: ContextStore["getContext"] = (...args) => this.#view.getContext(...args);
  getTimeline: ContextStore["getTimeline"] = (...args) => this.#view.getTimeline(...args);
  listSubjects: ContextStore["listSubjects"] = (...args) => this.#view.listSubjects(...args);
  deleteSubject: ContextStore["deleteSubject"] = (...args) => this.#view.deleteSubject(...args);
  watch: ContextStore["watch"] = (...args) => this.#view.watch(...args);
  close = (): Promise<void> => this.#root.close();
}
