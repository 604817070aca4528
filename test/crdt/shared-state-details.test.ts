import { describe, expect, it } from "vitest";
import type { ContextStore, CreateEpisodeInput } from "../../src/context/context-store.js";
import { sharedStatesPerTest } from "./support/shared-states.js";

const { memoryStore, open } = sharedStatesPerTest({ live: false });

async function episodeTypes(store: ContextStore): Promise<string[]> {
  const timeline = await store.getTimeline("run-1", { limit: 1000 });
  return timeline.episodes.map((episode) => episode.type);
}

/** A `state_update` episode whose bytes are not a Loro update. */
function corruptUpdate(peer: string, from: number, to: number): CreateEpisodeInput {
  return {
    subjectId: "run-1",
    source: "intruder",
    type: "state_update",
    payload: { update: Buffer.from("not a loro update").toString("base64"), peer, from, to },
  };
}

/** `store` whose `createEpisode` rejects episodes of `type`. */
function failingFor(store: ContextStore, type: string, failure: Error): ContextStore {
  return new Proxy(store, {
    get(target, property, receiver) {
      if (property === "createEpisode") {
        const createEpisode: ContextStore["createEpisode"] = (input, options) =>
          input.type === type ? Promise.reject(failure) : target.createEpisode(input, options);
        return createEpisode;
      }
      const value: unknown = Reflect.get(target, property, receiver);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

/** Two replicas write `plan/token` without seeing each other, then both read everything. */
async function dispute(store: ContextStore) {
  const architect = await open(store, "architect", { peerId: 1 });
  const reviewer = await open(store, "reviewer", { peerId: 2 });
  await architect.put("plan", "token", "RS256");
  await reviewer.put("plan", "token", "HS256");
  return { architect, reviewer };
}

describe("SharedState details", () => {
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

  describe("escalation announcements", () => {
    it("a failed announcement is reported and rejects the next sync, once", async () => {
      const store = memoryStore();
      const failure = new Error("store down");
      const errors: unknown[] = [];
      const architect = await open(store, "architect", { peerId: 1 });
      // The last contender's replica announces: the reviewer's, through a failing store.
      const reviewer = await open(failingFor(store, "escalation", failure), "reviewer", {
        peerId: 2,
        onError: (error) => errors.push(error),
      });
      await architect.put("plan", "token", "RS256");
      await reviewer.put("plan", "token", "HS256");
      await expect(reviewer.sync()).rejects.toBe(failure);
      expect(errors).toStrictEqual([failure]);
      await expect(reviewer.sync()).resolves.toBeUndefined();
    });

    it("a reopened replica does not announce again what it announced before", async () => {
      const store = memoryStore();
      const { architect, reviewer } = await dispute(store);
      await architect.sync();
      await reviewer.sync();
      expect((await episodeTypes(store)).filter((type) => type === "escalation")).toHaveLength(1);
      await architect.close();
      await reviewer.close();
      for (const [agentId, peerId] of [
        ["architect", 1],
        ["reviewer", 2],
      ] as const) {
        const reopened = await open(store, agentId, { peerId });
        expect(reopened.escalations()).toHaveLength(1);
      }
      expect((await episodeTypes(store)).filter((type) => type === "escalation")).toHaveLength(1);
    });

    it("an escalation first seen resolved is not announced", async () => {
      const store = memoryStore();
      const { architect, reviewer } = await dispute(store);
      // The reviewer's replica (the last contender's) would announce; the architect's does not,
      // and resolves the dispute before the reviewer reads it.
      await architect.sync();
      await architect.resolve("plan/token#0", "RS256", { by: "lead" });
      await reviewer.sync();
      expect(reviewer.escalations()[0]?.resolution?.value).toBe("RS256");
      expect(await episodeTypes(store)).not.toContain("escalation");
    });

    it("onEscalation returns an unsubscribe", async () => {
      const store = memoryStore();
      const architect = await open(store, "architect", { peerId: 1 });
      const reviewer = await open(store, "reviewer", { peerId: 2 });
      const raised: string[] = [];
      const unsubscribe = architect.onEscalation((escalation) => raised.push(escalation.id));
      expect(unsubscribe()).toBe(true);
      await architect.put("plan", "token", "RS256");
      await reviewer.put("plan", "token", "HS256");
      await architect.sync();
      expect(architect.escalations()).toHaveLength(1);
      expect(raised).toStrictEqual([]);
    });
  });

  describe("following the store", () => {
    it("follows other replicas by default", async () => {
      const store = memoryStore();
      const reader = await open(store, "reader", { live: undefined });
      const writer = await open(store, "writer");
      await writer.put("plan", "tags", ["a"]);
      await Promise.resolve();
      expect(reader.get("plan", "tags")).toStrictEqual(["a"]);
    });

    it("reports a failure of the store's watch through onError", async () => {
      const store = memoryStore();
      const failure = new Error("watch failed");
      const failingWatch = new Proxy(store, {
        get(target, property, receiver) {
          if (property === "watch") {
            const watch: ContextStore["watch"] = (subjectId, listener, options) => {
              options?.onError?.(failure);
              return target.watch(subjectId, listener, options);
            };
            return watch;
          }
          const value: unknown = Reflect.get(target, property, receiver);
          return typeof value === "function" ? value.bind(target) : value;
        },
      });
      const errors: unknown[] = [];
      await open(failingWatch, "reader", { live: true, onError: (error) => errors.push(error) });
      expect(errors).toStrictEqual([failure]);
    });
  });

  describe("resolve", () => {
    it("records the resolution of the escalation it was given, among several", async () => {
      const store = memoryStore();
      const architect = await open(store, "architect", { peerId: 1 });
      const reviewer = await open(store, "reviewer", { peerId: 2 });
      for (const [key, mine, theirs] of [
        ["alpha", "a1", "a2"],
        ["token", "RS256", "HS256"],
      ] as const) {
        await architect.put("plan", key, mine);
        await reviewer.put("plan", key, theirs);
      }
      await architect.sync();
      await architect.resolve("plan/token#0", "RS256", { by: "lead" });
      const timeline = await store.getTimeline("run-1", { limit: 1000 });
      const resolutions = timeline.episodes.filter(
        (episode) => episode.type === "escalation_resolution",
      );
      expect(resolutions.map((episode) => episode.payload.escalationId)).toStrictEqual([
        "plan/token#0",
      ]);
    });
  });

  describe("close", () => {
    it("stops following the store, and closing twice is harmless", async () => {
      const store = memoryStore();
      const reader = await open(store, "reader", { live: true });
      const writer = await open(store, "writer");
      await writer.put("plan", "tags", ["a"]);
      await Promise.resolve();
      expect(reader.get("plan", "tags")).toStrictEqual(["a"]);
      await reader.close();
      await reader.close();
      await writer.put("plan", "tags", ["b"]);
      await Promise.resolve();
      expect(reader.get("plan", "tags")).toStrictEqual(["a"]);
    });
  });
});
