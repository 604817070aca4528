import type { ContextStore } from "./context-store.js";
import { StoreFileError } from "./errors/store-file-error.js";

function mapped(error: unknown, path: string): unknown {
  return StoreFileError.from(error, path) ?? error;
}

/**
 * `store` with every failure about its database file (damaged, read-only, disk full) rethrown as
 * a {@link StoreFileError} naming `path`, from any method and from the views `forTenant` returns.
 * Methods run on the store itself (its private fields stay reachable); `instanceof` still holds.
 */
export function withFileErrors<T extends object>(store: T, path: string): T {
  return new Proxy(store, {
    get(target, property) {
      const value: unknown = Reflect.get(target, property, target);
      if (typeof value !== "function") return value;
      return (...args: unknown[]) => {
        let result: unknown;
        try {
          result = (value as (...inner: unknown[]) => unknown).apply(target, args);
        } catch (error) {
          throw mapped(error, path);
        }
        if (result instanceof Promise) {
          return result.catch((error: unknown) => {
            throw mapped(error, path);
          });
        }
        // A tenant view is a store of its own over the same file.
        if (property === "forTenant" && typeof result === "object" && result !== null) {
          return withFileErrors(result as ContextStore, path);
        }
        return result;
      };
    },
  });
}
