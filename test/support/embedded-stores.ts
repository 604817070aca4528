import { afterEach, vi } from "vitest";
import {
  EmbeddedStore,
  type EmbeddedStoreOptions,
} from "../../src/context/embedded/embedded-store.js";

/**
 * `open(options)` for one test file: an in-memory embedded store (unless `options` says otherwise)
 * with `defaults()` applied, called per store so each can get its own id counter. Every store a
 * test opened is closed after it, with real timers back first (a test may have faked them).
 */
export function embeddedStoresPerTest(
  defaults: () => Partial<EmbeddedStoreOptions> = () => ({}),
): (options?: Partial<EmbeddedStoreOptions>) => EmbeddedStore {
  const opened: EmbeddedStore[] = [];
  afterEach(async () => {
    vi.useRealTimers();
    for (const store of opened.splice(0)) await store.close();
  });
  return (options = {}) => {
    const store = new EmbeddedStore({ path: ":memory:", ...defaults(), ...options });
    opened.push(store);
    return store;
  };
}
