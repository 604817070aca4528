import { describe, expect, it } from "vitest";
import type { StoreChange } from "../../../src/context/context-store.js";
import { waitFor } from "../store-contract.js";
import { decide, emulatedStatewaveStoresPerTest } from "../support/emulated-statewave-stores.js";

/**
 * The knowledge layer StatewaveStore applies client-side on a real Statewave v0.7.1 (emulated),
 * where decisions come back as `episode_summary` memories with `metadata: {}`.
 */
/** A store over a fresh emulator, polling every 5 ms, closed after the test. */
const connect = emulatedStatewaveStoresPerTest();

/** Each memory change as `content: status`, consecutive repeats of one change once. */
function memoryStatuses(changes: readonly StoreChange[]): string[] {
  const lines: string[] = [];
  for (const change of changes) {
    if (change.type !== "memory") continue;
    const line = `${change.memory.content}: ${change.memory.status}`;
    if (lines.at(-1) !== line) lines.push(line);
  }
  return lines;
}

describe("StatewaveStore knowledge on Statewave v0.7.1", () => {
  it("leaves a decision its author restated out of the context", async () => {
    const store = connect();
    await decide(store, "planner", "Keep the cache");
    const newer = await decide(store, "planner", "Keep the cache, sized 2 GB");
    const bundle = await store.getContext("run", "cache");
    expect(bundle.facts.map((memory) => memory.id)).toEqual([newer.id]);
  });

  describe("watch", () => {
    it("delivers no history unless asked to replay it", async () => {
      const store = connect();
      await decide(store, "planner-a", "Keep the cache");
      const changes: StoreChange[] = [];
      const subscription = store.watch("run", (change) => changes.push(change));
      await decide(store, "planner-b", "Drop the cache");
      await waitFor(() => expect(memoryStatuses(changes)).toEqual(["Drop the cache: active"]));
      subscription.close();
    });

    it("delivers the supersede of a restated decision and the contradiction of the other", async () => {
      const store = connect();
      const first = await decide(store, "planner-a", "Keep the cache");
      const changes: StoreChange[] = [];
      const subscription = store.watch("run", (change) => changes.push(change));
      const other = await decide(store, "planner-b", "Drop the cache");
      const restated = await decide(store, "planner-a", "Keep the cache, really");
      await waitFor(() =>
        expect(memoryStatuses(changes)).toEqual([
          "Drop the cache: active",
          "Keep the cache: superseded",
          "Keep the cache, really: active",
        ]),
      );
      const memories = changes.flatMap((change) =>
        change.type === "memory" ? [change.memory] : [],
      );
      expect(memories.find((memory) => memory.id === first.id)?.validTo).toBe(restated.validFrom);
      expect(memories.find((memory) => memory.id === other.id)?.metadata.contradicts).toEqual([
        first.id,
      ]);
      expect(memories.at(-1)?.metadata.contradicts).toEqual([other.id]);
      subscription.close();
    });
  });
});
