import { describe, expect, it } from "vitest";
import { sharedStatesPerTest } from "./support/shared-states.js";
import { episodeTypes } from "./support/store-episodes.js";

const { memoryStore, open } = sharedStatesPerTest({ live: false });

describe("SharedState", () => {
  describe("publishing", () => {
    it("a write that changes nothing publishes nothing", async () => {
      const store = memoryStore();
      const writer = await open(store, "writer");
      await writer.put("plan", "notes", "first");
      // The text it already holds: nothing to append.
      await writer.put("plan", "notes", "first");
      expect(await episodeTypes(store)).toStrictEqual(["state_update"]);
      expect(writer.get("plan", "notes")).toBe("first");
    });
    it("a reopened replica publishes only its new writes", async () => {
      const store = memoryStore();
      const first = await open(store, "writer", { peerId: 5 });
      for (const tag of ["a", "b"]) await first.put("plan", "tags", [tag]);
      await first.close();
      const reopened = await open(store, "writer", { peerId: 5 });
      await reopened.put("plan", "tags", ["c"]);
      const timeline = await store.getTimeline("run-1");
      expect(
        timeline.episodes.map((episode) => [episode.payload.from, episode.payload.to]),
      ).toStrictEqual([
        [0, 1],
        [1, 2],
        [2, 3],
      ]);
    });
  });
});
