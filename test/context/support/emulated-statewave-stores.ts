import { afterEach } from "vitest";
import { StatewaveStore } from "../../../src/context/statewave-store.js";
import { createStatewaveEmulator } from "../../../src/server/compat/statewave-v0-7-1.js";

type Fetch = typeof globalThis.fetch;

export interface EmulatedStoreOptions {
  /** @default 5 */
  pollIntervalMs?: number;
  /** A test's own recording or rewriting in front of the emulator. */
  wrap?: (emulator: Fetch) => Fetch;
}

/**
 * Opens `StatewaveStore`s, each over a fresh Statewave v0.7.1 emulator, and closes them after
 * every test (call it once in a file or `describe`, where `afterEach` can register).
 */
export function emulatedStatewaveStoresPerTest(): (
  options?: EmulatedStoreOptions,
) => StatewaveStore {
  const stores: StatewaveStore[] = [];
  afterEach(async () => {
    await Promise.all(stores.splice(0).map((store) => store.close()));
  });
  return ({ pollIntervalMs = 5, wrap = (fetch: Fetch) => fetch }: EmulatedStoreOptions = {}) => {
    const emulator = createStatewaveEmulator();
    const store = new StatewaveStore({ fetch: wrap(emulator.clientFetch), pollIntervalMs });
    stores.push(store);
    return store;
  };
}
