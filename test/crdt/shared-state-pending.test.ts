import { describe, expect, it } from "vitest";
import type { ContextStore } from "../../src/context/context-store.js";
import { type Deferred, deferred } from "../support/deferred.js";
import { sharedStatesPerTest } from "./support/shared-states.js";

const { memoryStore, open } = sharedStatesPerTest({ live: false });

/**
 * `store` whose writes of episodes of `type` land only when the test calls `release()`;
 * `requested` resolves once such a write has been asked for.
 */
function holdingWrites(store: ContextStore, type: string) {
  const requested = deferred();
  const released: Deferred<void> = deferred();
  const holding = new Proxy(store, {
    get(target, property, receiver) {
      if (property === "createEpisode") {
        const createEpisode: ContextStore["createEpisode"] = async (input, options) => {
          if (input.type === type) {
            requested.resolve();
            await released.promise;
          }
          return target.createEpisode(input, options);
        };
        return createEpisode;
      }
      const value: unknown = Reflect.get(target, property, receiver);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  return { store: holding, requested: requested.promise, release: () => released.resolve() };
}

/** Whether `promise` is still pending once every queued microtask has run. */
async function stillPending(promise: Promise<unknown>): Promise<boolean> {
  let settled = false;
  void promise.then(
    () => {
      settled = true;
    },
    () => {
      settled = true;
    },
  );
  await new Promise((resolve) => setImmediate(resolve));
  return !settled;
}

async function escalationCount(store: ContextStore): Promise<number> {
  const timeline = await store.getTimeline("run-1", { limit: 1000 });
  return timeline.episodes.filter((episode) => episode.type === "escalation").length;
}

describe("SharedState with an announcement in flight", () => {
  it("sync resolves only once the escalation it announces is stored", async () => {
    const store = memoryStore();
    const held = holdingWrites(store, "escalation");
    const architect = await open(store, "architect", { peerId: 1 });
    // The last contender's replica announces: the reviewer's, through the holding store.
    const reviewer = await open(held.store, "reviewer", { peerId: 2 });
    await architect.put("plan", "token", "RS256");
    await reviewer.put("plan", "token", "HS256");
    const synced = reviewer.sync();
    await held.requested;
    const waited = await stillPending(synced);
    // Released before asserting, so a failure does not leave the write held for the clean-up.
    held.release();
    await synced;
    expect(waited).toBe(true);
    expect(await escalationCount(store)).toBe(1);
  });

  it("close resolves only once the announcement it found in flight is stored", async () => {
    const store = memoryStore();
    const held = holdingWrites(store, "escalation");
    const reviewer = await open(held.store, "reviewer", { peerId: 2, live: true });
    const architect = await open(store, "architect", { peerId: 1 });
    await reviewer.put("plan", "token", "HS256");
    // The architect does not follow the store: its write is concurrent with the reviewer's,
    // whose replica follows the store, sees both, and announces.
    await architect.put("plan", "token", "RS256");
    await held.requested;
    const closed = reviewer.close();
    const waited = await stillPending(closed);
    // Released before asserting, so a failure does not leave the write held for the clean-up.
    held.release();
    await closed;
    expect(waited).toBe(true);
    expect(await escalationCount(store)).toBe(1);
  });
});
