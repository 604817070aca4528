import { afterEach, describe, expect, it } from "vitest";
import { EmbeddedStore } from "../../../src/context/embedded/embedded-store.js";

const stores: EmbeddedStore[] = [];
afterEach(async () => {
  await Promise.all(stores.splice(0).map((store) => store.close()));
});

describe("EmbeddedStore.compileMemories", () => {
  it("reports a memory superseded within the same compile as superseded", async () => {
    const store = new EmbeddedStore({ path: ":memory:" });
    stores.push(store);
    for (const content of ["Keep the cache", "Keep the cache, sized 2 GB"]) {
      await store.createEpisode({
        subjectId: "run",
        source: "planner",
        type: "architectural_decision",
        payload: { content, target: "cache" },
      });
    }
    const { memories } = await store.compileMemories("run");
    const [older, newer] = memories;
    expect(memories.map((memory) => [memory.content, memory.status])).toEqual([
      ["Keep the cache", "superseded"],
      ["Keep the cache, sized 2 GB", "active"],
    ]);
    expect(older?.validTo).toBe(newer?.validFrom);
    // What the call returned is what the store now holds.
    const timeline = await store.getTimeline("run");
    expect(timeline.memories).toEqual(memories);
  });
});
