import type { ContextStore } from "./context-store.js";
import { EmbeddedStore } from "./embedded/embedded-store.js";
import { PostgresStore } from "./postgres/postgres-store.js";
import { StatewaveStore } from "./statewave/statewave-store.js";
import { type CreateContextStoreOptions, resolveStoreSettings } from "./store-location.js";

// The selection alone lives in store-location.ts (no store's code): a command that opens one store
// loads only that store's module (see `openContextStore` in open-context-store.ts).
export {
  type CreateContextStoreOptions,
  defaultDbPath,
  defaultStatewaveUrl,
  resolveDbPath,
  resolveStoreLocation,
  type StoreLocation,
} from "./store-location.js";

/**
 * The `ContextStore` the configuration asks for (see `resolveStoreLocation`): a `PostgresStore`
 * for a database URL, a `StatewaveStore` (over a `StatewaveClient`) for a server, otherwise an
 * `EmbeddedStore`. Reading `process.env`/`process.cwd()` is done only when `env`/`cwd` are not
 * passed.
 * @throws StoreValidationError when Postgres is selected without a URL
 */
export function createContextStore(options: CreateContextStoreOptions = {}): ContextStore {
  const settings = resolveStoreSettings(options);
  switch (settings.kind) {
    case "postgres":
      return new PostgresStore(settings);
    case "statewave": {
      return new StatewaveStore(settings);
    }
    case "embedded":
      return new EmbeddedStore(settings);
  }
}
