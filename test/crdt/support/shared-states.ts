import { afterEach } from "vitest";
import type { ContextStore } from "../../../src/context/context-store.js";
import { EmbeddedStore } from "../../../src/context/embedded/embedded-store.js";
import { type OpenSharedStateOptions, SharedState } from "../../../src/crdt/shared-state.js";

/** What `open` takes besides the store and agent: any open option, and where its clock starts. */
export type OpenOptions = Partial<OpenSharedStateOptions> & { clockStart?: number };

/**
 * Stores and replicas for one test file, closed after each test: in-memory stores with counted
 * episode ids, and replicas of subject `run-1` whose clock counts up from `clockStart` (0), so
 * times and ids are the same on every run. `defaults` applies to every `open` (e.g. `live: false`).
 */
export function sharedStatesPerTest(defaults: Partial<OpenSharedStateOptions> = {}) {
  const stores: EmbeddedStore[] = [];
  const states: SharedState[] = [];
  afterEach(async () => {
    for (const state of states.splice(0)) await state.close();
    for (const store of stores.splice(0)) await store.close();
  });
  function memoryStore(): EmbeddedStore {
    let id = 0;
    const store = new EmbeddedStore({ path: ":memory:", generateId: () => `ep-${++id}` });
    stores.push(store);
    return store;
  }
  async function open(
    store: ContextStore,
    agentId: string,
    options: OpenOptions = {},
  ): Promise<SharedState> {
    const { clockStart = 0, ...rest } = options;
    let clock = clockStart;
    const state = await SharedState.open({
      store,
      subjectId: "run-1",
      agentId,
      now: () => ++clock,
      ...defaults,
      ...rest,
    });
    states.push(state);
    return state;
  }
  /**
   * A reader (opened with `readerOptions`) and a writer on one store, and `writeTags`, which puts
   * the writer's `plan/tags` and gives a following reader the tick its watch takes to import them.
   */
  async function readerAndWriter(readerOptions: OpenOptions) {
    const store = memoryStore();
    const reader = await open(store, "reader", readerOptions);
    const writer = await open(store, "writer");
    const writeTags = async (tags: string[]) => {
      await writer.put("plan", "tags", tags);
      await Promise.resolve();
    };
    return { store, reader, writer, writeTags };
  }
  return { memoryStore, open, readerAndWriter };
}
