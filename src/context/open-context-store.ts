import type { ContextStore } from "./context-store.js";
import { type CreateContextStoreOptions, resolveStoreSettings } from "./store-location.js";

/**
 * The same store as `createContextStore`, loading only the selected store's module: the embedded
 * store's code alone, not the Postgres and Statewave clients' (what a CLI command saves at start-up).
 * @throws StoreValidationError when Postgres is selected without a URL
 */
export async function openContextStore(
  options: CreateContextStoreOptions = {},
): Promise<ContextStore> {
  const settings = resolveStoreSettings(options);
  switch (settings.kind) {
    case "postgres": {
      const { PostgresStore } = await import("./postgres/postgres-store.js");
      return new PostgresStore(settings);
    }
    case "statewave": {
      const { StatewaveStore } = await import("./statewave/statewave-store.js");
      return new StatewaveStore(settings);
    }
    case "embedded": {
      const { EmbeddedStore } = await import("./embedded/embedded-store.js");
      return new EmbeddedStore(settings);
    }
  }
}
