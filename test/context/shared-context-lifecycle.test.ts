import { describe, expect, it } from "vitest";
import type { Memory } from "../../src/context/context-store.js";
import { EmbeddedStore } from "../../src/context/embedded/embedded-store.js";
import { SharedContext } from "../../src/context/shared-context.js";
import { SharedState } from "../../src/crdt/shared-state.js";
import { deferred } from "../support/deferred.js";
import { captureFeed, closeAfterEach } from "./support/shared-context-fixture.js";
import { decision, listen, subjectId } from "./support/shared-context-setups.js";

const opened = closeAfterEach();

function setUp(options: { onError?: (error: unknown) => void; state?: SharedState } = {}) {
  const store = new EmbeddedStore({ path: ":memory:" });
  const send = captureFeed(store);
  const shared = new SharedContext({ store, subjectId, ...options });
  opened.push(store, shared);
  return { store, shared, send };
}

/** Lets pending promise callbacks (a replacement lookup) run. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

/** "cache in use" by the project, read by the coder and the planner: what the planner retires. */
async function readByCoder(shared: SharedContext): Promise<Memory> {
  const { memories } = await shared.decide("project", "cache in use", decision("cache"));
  await shared.beforeActing("coder", "Build module cache");
  await shared.beforeActing("planner", "Decide the fate of cache");
  const [memory] = memories;
  if (memory === undefined) throw new Error("no memory compiled");
  return memory;
}

describe("SharedContext lifecycle", () => {
  describe("close", () => {
    it("stops the store's feed: a listener added after close hears nothing", async () => {
      const { shared } = setUp();
      await readByCoder(shared);
      await shared.close();
      const notices = listen(shared, "coder");
      await shared.decide("planner", "Retire cache", decision("cache"));
      await settle();
      expect(notices).toEqual([]);
    });

    it("stops following the shared state's escalations", async () => {
      const store = new EmbeddedStore({ path: ":memory:" });
      opened.push(store);
      const state = await SharedState.open({ store, subjectId, agentId: "lead" });
      opened.push(state);
      const shared = new SharedContext({ store, subjectId, state });
      await shared.beforeActing("coder-1", "Build module search-index");
      await shared.close();
      const notices = listen(shared, "coder-1");
      const replicas = await Promise.all(
        ["coder-1", "coder-2"].map((agentId, index) =>
          SharedState.open({ store, subjectId, agentId, live: false, peerId: index + 1 }),
        ),
      );
      opened.push(...replicas);
      await replicas[0]?.put("modules", "search-index", "one");
      await replicas[1]?.put("modules", "search-index", "two");
      await state.sync();
      expect(state.escalations()).toHaveLength(1);
      expect(notices).toEqual([]);
    });

    it("tells nobody what a lookup still running at close finds", async () => {
      const { store, shared } = setUp();
      await readByCoder(shared);
      const notices = listen(shared, "coder");
      const gate = deferred();
      const search = store.searchMemories.bind(store);
      store.searchMemories = async (id, options) => {
        await gate.promise;
        return search(id, options);
      };
      await shared.decide("planner", "Retire cache", decision("cache"));
      await shared.close();
      gate.resolve();
      await settle();
      expect(notices).toEqual([]);
    });
  });

  describe("background errors", () => {
    it("keeps the first listener error, not the last", async () => {
      const { shared } = setUp();
      await readByCoder(shared);
      const first = new Error("first listener failed");
      const thrown = deferred();
      shared.onInvalidated("coder", () => {
        throw first;
      });
      shared.onInvalidated("coder", () => {
        thrown.resolve();
        throw new Error("second listener failed");
      });
      await shared.decide("planner", "Retire cache", decision("cache"));
      await thrown.promise;
      await expect(shared.beforeActing("coder", "Build module cache")).rejects.toBe(first);
    });

    it("keeps the first error a throwing onError raised, not the last", async () => {
      const raised: Error[] = [];
      const { shared } = setUp({
        onError: () => {
          const error = new Error(`reporter failed ${raised.length + 1}`);
          raised.push(error);
          throw error;
        },
      });
      await readByCoder(shared);
      const thrown = deferred();
      shared.onInvalidated("coder", () => {
        throw new Error("first listener failed");
      });
      shared.onInvalidated("coder", () => {
        thrown.resolve();
        throw new Error("second listener failed");
      });
      await shared.decide("planner", "Retire cache", decision("cache"));
      await thrown.promise;
      expect(raised).toHaveLength(2);
      await expect(shared.beforeActing("coder", "Build module cache")).rejects.toBe(raised[0]);
    });

    it("looks nothing up when nobody read what was superseded", async () => {
      const errors: unknown[] = [];
      const { store, shared } = setUp({ onError: (error) => errors.push(error) });
      // Watching, but nobody has read anything.
      listen(shared, "coder");
      await shared.decide("project", "cache in use", decision("cache"));
      store.searchMemories = async () => {
        throw new Error("connection refused");
      };
      await shared.decide("project", "Retire cache", decision("cache"));
      await settle();
      expect(errors).toEqual([]);
    });
  });

  describe("the store's change feed", () => {
    it("ignores episodes, and memories that were deleted rather than superseded", async () => {
      const errors: unknown[] = [];
      const { shared, send } = setUp({ onError: (error) => errors.push(error) });
      const memory = await readByCoder(shared);
      const notices = listen(shared, "coder");
      const { episode } = await shared.decide("lead", "Note", { kind: "implementation_note" });
      expect(() => send({ type: "episode", episode })).not.toThrow();
      send({ type: "memory", memory: { ...memory, status: "deleted" } });
      await settle();
      expect(notices).toEqual([]);
      expect(errors).toEqual([]);
    });
  });
});
