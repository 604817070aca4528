import type { ContextStore } from "../../context/context-store.js";

/** Calls that ask the store nothing: closing a handle is not a coordination operation. */
const notRequests = new Set<PropertyKey>(["close", "constructor"]);

/**
 * `store`, calling `onRequest` once for each request made through it. Every method is counted,
 * whatever the backend adds, so a new read cannot slip past the count. Methods run on the store
 * itself (a class's private fields need their own `this`).
 */
export function countedStore(store: ContextStore, onRequest: () => void): ContextStore {
  return new Proxy(store, {
    get(target, property) {
      const value: unknown = Reflect.get(target, property, target);
      if (typeof value !== "function" || notRequests.has(property)) return value;
      return (...args: unknown[]) => {
        onRequest();
        return (value as (...given: unknown[]) => unknown).apply(target, args);
      };
    },
  });
}
