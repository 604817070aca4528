import { describe, expect, it } from "vitest";
import type { StoreChange } from "../../../src/context/context-store.js";
import { waitFor } from "../store-contract.js";
import { decide, emulatedStatewaveStoresPerTest } from "../support/emulated-statewave-stores.js";

/**
 * `StatewaveStore.watch` on a Statewave v0.7.1 (emulated), where the supersede of a restated
 * decision is made client-side: each change reaches a watcher exactly once, live or replayed.
 */
/** A store over a fresh emulator, polling every 5 ms, closed after the test. */
const connect = emulatedStatewaveStoresPerTest();

/** Every memory change as `content: status`, repeats included. */
function memoryChanges(changes: readonly StoreChange[]): string[] {
  return changes.flatMap((change) =>
    change.type === "memory" ? [`${change.memory.content}: ${change.memory.status}`] : [],
  );
}

describe("StatewaveStore.watch supersede", () => {
  it("delivers a decision its author restated as superseded once", async () => {
    const store = connect();
    await decide(store, "planner-a", "Keep the cache");
    const changes: StoreChange[] = [];
    const subscription = store.watch("run", (change) => changes.push(change));
    await decide(store, "planner-b", "Drop the cache");
    await decide(store, "planner-a", "Keep the cache, really");
    await waitFor(() => expect(memoryChanges(changes)).toContain("Keep the cache, really: active"));
    expect(memoryChanges(changes)).toEqual([
      "Drop the cache: active",
      "Keep the cache: superseded",
      "Keep the cache, really: active",
    ]);
    subscription.close();
  });

  it("replays the supersede once to a watcher joining a running poller", async () => {
    const store = connect();
    await decide(store, "planner-a", "Keep the cache");
    const early = store.watch("run", () => undefined);
    await decide(store, "planner-b", "Drop the cache");
    await decide(store, "planner-a", "Keep the cache, really");
    const changes: StoreChange[] = [];
    const late = store.watch("run", (change) => changes.push(change), { replay: true });
    await waitFor(() => expect(memoryChanges(changes)).toContain("Keep the cache, really: active"));
    expect(memoryChanges(changes)).toEqual([
      "Keep the cache: active",
      "Drop the cache: active",
      "Keep the cache: superseded",
      "Keep the cache, really: active",
    ]);
    early.close();
    late.close();
  });
});
