import type { ContextStore } from "./context-store.js";
import { type CreateContextStoreOptions, resolveStoreSettings } from "./store-location.js";

/**
 * The same store as `createContextStore`, loading only the selected store's module: the embedded
 * store's code alone, not the Postgres and Statewave clients' (what a CLI command saves at start-up).
 * @throws StoreValidationError when Postgres is selected without a URL
 * @throws DbPathError, StoreFileError when the embedded database file cannot be used
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
      const [{ EmbeddedStore }, { withFileErrors }, { StoreFileError }] = await Promise.all([
        import("./embedded/embedded-store.js"),
        import("./store-file-errors.js"),
        import("./errors/store-file-error.js"),
      ]);
      let store: ContextStore;
      try {
        store = new EmbeddedStore(settings);
      } catch (error) {
        throw StoreFileError.from(error, settings.path) ?? error;
      }
      // A write that finds the disk full, or a read of a damaged page, names the file too.
      return withFileErrors(store, settings.path);
    }
  }
}
