import { describe, expect, it } from "vitest";
import { sharedStatesPerTest } from "./support/shared-states.js";
import { corruptUpdate, episodeTypes } from "./support/store-episodes.js";

const { memoryStore, open } = sharedStatesPerTest({ live: false });

describe("SharedState", () => {
  describe("snapshots", () => {
    it("are written every snapshotEvery own updates (a live replica counts its own once)", async () => {
      const store = memoryStore();
      const writer = await open(store, "writer", { snapshotEvery: 3, live: true });
      for (const tag of ["a", "b"]) await writer.put("plan", "tags", [tag]);
      expect(await episodeTypes(store)).not.toContain("state_snapshot");
      await writer.put("plan", "tags", ["c"]);
      expect(await episodeTypes(store)).toStrictEqual([
        "state_update",
        "state_update",
        "state_update",
        "state_snapshot",
      ]);
    });

    it("are written after every update when snapshotEvery is below one", async () => {
      const store = memoryStore();
      const writer = await open(store, "writer", { snapshotEvery: 0 });
      await writer.put("plan", "tags", ["a"]);
      expect(await episodeTypes(store)).toStrictEqual(["state_update", "state_snapshot"]);
    });

    it("are written after 200 updates by default", async () => {
      const store = memoryStore();
      const writer = await open(store, "writer");
      for (let index = 0; index < 199; index++) await writer.put("stats", "runs", index);
      expect(await episodeTypes(store)).not.toContain("state_snapshot");
      await writer.put("stats", "runs", 199);
      expect((await episodeTypes(store)).at(-1)).toBe("state_snapshot");
    });

    it("spare opening the updates they cover: a corrupt covered update is never read", async () => {
      const store = memoryStore();
      const writer = await open(store, "writer", { peerId: 5, snapshotEvery: 2 });
      await writer.put("plan", "tags", ["a"]);
      await writer.put("plan", "tags", ["b"]);
      // Covered exactly: the snapshot below holds peer 5's operations up to 2.
      await store.createEpisode(corruptUpdate("5", 1, 2));
      await writer.put("plan", "tags", ["c"]);
      const errors: unknown[] = [];
      const reader = await open(store, "reader", { onError: (error) => errors.push(error) });
      expect(reader.get("plan", "tags")).toStrictEqual(["a", "b", "c"]);
      expect(errors).toStrictEqual([]);
    });

    it("count the updates read from others, until another replica's snapshot", async () => {
      const store = memoryStore();
      const first = await open(store, "first", { live: true, snapshotEvery: 3 });
      const second = await open(store, "second", { live: true, snapshotEvery: 3 });
      for (const tag of ["a", "b", "c"]) await first.put("plan", "tags", [tag]);
      // first's snapshot covers the three updates second has read: second starts again from 0.
      await second.put("plan", "tags", ["d"]);
      expect((await episodeTypes(store)).filter((type) => type === "state_snapshot")).toHaveLength(
        1,
      );
    });

    it("count an update once, whether it arrived live or through sync", async () => {
      const store = memoryStore();
      const first = await open(store, "first", { live: true, snapshotEvery: 3 });
      const second = await open(store, "second", { live: true, snapshotEvery: 3 });
      await first.put("plan", "tags", ["a"]);
      await second.sync();
      await second.put("plan", "tags", ["b"]);
      expect(await episodeTypes(store)).not.toContain("state_snapshot");
      await second.put("plan", "tags", ["c"]);
      expect((await episodeTypes(store)).at(-1)).toBe("state_snapshot");
    });

    it("count the updates after the latest snapshot when reopened", async () => {
      const store = memoryStore();
      const first = await open(store, "writer", { peerId: 5, snapshotEvery: 3 });
      for (const tag of ["a", "b", "c", "d"]) await first.put("plan", "tags", [tag]);
      await first.close();
      const reopened = await open(store, "writer", { peerId: 5, snapshotEvery: 3 });
      await reopened.put("plan", "tags", ["e"]);
      expect((await episodeTypes(store)).at(-1)).toBe("state_update");
      await reopened.put("plan", "tags", ["f"]);
      expect((await episodeTypes(store)).at(-1)).toBe("state_snapshot");
    });
  });
});
