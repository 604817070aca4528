import { describe, expect, it } from "vitest";
import { sharedStatesPerTest } from "./support/shared-states.js";
import { corruptUpdate } from "./support/store-episodes.js";

const { memoryStore, open } = sharedStatesPerTest({ live: false });

describe("SharedState", () => {
  describe("updates that are not updates", () => {
    it("opening reports a corrupt update and still imports every other one", async () => {
      const store = memoryStore();
      const writer = await open(store, "writer");
      await writer.put("plan", "tags", ["auth"]);
      await store.createEpisode(corruptUpdate("5", 0, 1));
      await store.createEpisode({
        subjectId: "run-1",
        source: "intruder",
        type: "state_update",
        payload: { update: 3, peer: "6", from: 0, to: 1 },
      });
      await writer.put("plan", "tags", ["crypto"]);
      const errors: unknown[] = [];
      const reader = await open(store, "reader", { onError: (error) => errors.push(error) });
      expect(reader.get("plan", "tags")).toStrictEqual(["auth", "crypto"]);
      // The batch failed once, then the corrupt update alone: the malformed episode is skipped.
      expect(errors).toHaveLength(2);
    });

    it("a live replica reports a corrupt update it is sent and keeps following", async () => {
      const store = memoryStore();
      const errors: unknown[] = [];
      const reader = await open(store, "reader", {
        live: true,
        onError: (error) => errors.push(error),
      });
      const writer = await open(store, "writer");
      await store.createEpisode(corruptUpdate("5", 0, 1));
      await reader.sync();
      expect(errors.length).toBeGreaterThan(0);
      await writer.put("plan", "tags", ["auth"]);
      await reader.sync();
      expect(reader.get("plan", "tags")).toStrictEqual(["auth"]);
    });
  });
});
