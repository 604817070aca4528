import { describe, expect, it } from "vitest";
import type { ContextStore } from "../../src/context/context-store.js";
import { sharedStatesPerTest } from "./support/shared-states.js";
import { episodeTypes, failingFor } from "./support/store-episodes.js";

const { memoryStore, open } = sharedStatesPerTest({ live: false });

/** Two replicas write `plan/token` without seeing each other, then both read everything. */
async function dispute(store: ContextStore) {
  const architect = await open(store, "architect", { peerId: 1 });
  const reviewer = await open(store, "reviewer", { peerId: 2 });
  await architect.put("plan", "token", "RS256");
  await reviewer.put("plan", "token", "HS256");
  return { architect, reviewer };
}

describe("SharedState", () => {
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
});
