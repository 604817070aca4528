import { afterEach } from "vitest";
import type { Memory } from "../../../src/context/context-store.js";
import { StatewaveStore } from "../../../src/context/statewave/statewave-store.js";
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

/**
 * Writes `source`'s decision on `target` to subject "run", compiles, and returns its memory
 * (typed client-side on v0.7.1, where the compile leaves `metadata` empty).
 */
export async function decide(
  store: StatewaveStore,
  source: string,
  content: string,
  target = "cache",
): Promise<Memory> {
  await store.createEpisode({
    subjectId: "run",
    source,
    type: "architectural_decision",
    payload: { content, target },
  });
  const { memories } = await store.compileMemories("run");
  const memory = memories.find(
    (item) => item.content === content && item.metadata.target === target,
  );
  if (memory === undefined) throw new Error(`no memory for ${content}`);
  return memory;
}
