import { describe, expect, it } from "vitest";
import type { ContextStore } from "../../src/context/context-store.js";
import { SharedStateClosedError } from "../../src/crdt/errors/shared-state-closed-error.js";
import { Disputed, type Escalation } from "../../src/crdt/shared-state.js";
import { sharedStatesPerTest } from "./support/shared-states.js";

const { memoryStore, open } = sharedStatesPerTest();

/**
 * A store whose timeline reads are counted and, with `ignoreOffset`, always start at the first
 * episode: what a real Statewave v0.7.1 does with `offset`.
 */
function timelineDouble(
  store: ContextStore,
  options: { ignoreOffset: boolean },
): { store: ContextStore; reads: () => number } {
  let reads = 0;
  const double = new Proxy(store, {
    get(target, property, receiver) {
      if (property === "getTimeline") {
        const getTimeline: ContextStore["getTimeline"] = (subjectId, timelineOptions) => {
          reads++;
          return target.getTimeline(
            subjectId,
            options.ignoreOffset ? { ...timelineOptions, offset: 0 } : timelineOptions,
          );
        };
        return getTimeline;
      }
      const value: unknown = Reflect.get(target, property, receiver);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  return { store: double, reads: () => reads };
}

async function episodeTypes(store: ContextStore): Promise<string[]> {
  const timeline = await store.getTimeline("run-1", { limit: 1000 });
  return timeline.episodes.map((episode) => episode.type);
}

describe("SharedState", () => {
  describe("sync through the store", () => {
    it("live replicas see each other's writes as soon as they are stored", async () => {
      const store = memoryStore();
      const architect = await open(store, "architect");
      const coder = await open(store, "coder");
      const seen: unknown[] = [];
      coder.onChange((change) => seen.push(change));
      await architect.put("plan", "tags", ["auth"]);
      await coder.sync();
      expect(coder.get("plan", "tags")).toEqual(["auth"]);
      expect(seen).toEqual([
        { namespace: "plan", key: "tags", agentId: "architect", local: false },
      ]);
      const episode = (await store.getTimeline("run-1")).episodes[0];
      expect(episode).toMatchObject({
        type: "state_update",
        source: "architect",
        payload: { peer: architect.peerId, from: 0, to: 1 },
      });
    });

    it("replicas that did not see each other escalate once, announce once, and converge on a resolution", async () => {
      const store = memoryStore();
      const architect = await open(store, "architect", { live: false });
      const reviewer = await open(store, "reviewer", { live: false });
      const raised: Escalation[] = [];
      architect.onEscalation((escalation) => raised.push(escalation));
      await architect.put("plan", "token", "RS256");
      await reviewer.put("plan", "token", "HS256");
      await architect.sync();
      await reviewer.sync();
      await architect.sync();
      const disputed = architect.get("plan", "token");
      expect(disputed).toBeInstanceOf(Disputed);
      expect(reviewer.escalations()).toStrictEqual(architect.escalations());
      expect(raised.map((escalation) => escalation.id)).toEqual(["plan/token#0"]);
      expect((await episodeTypes(store)).filter((type) => type === "escalation")).toHaveLength(1);

      await reviewer.resolve((disputed as Disputed).escalationId, "RS256", { by: "lead" });
      await architect.sync();
      expect(architect.get("plan", "token")).toBe("RS256");
      expect(architect.escalations()[0]?.resolution).toMatchObject({ value: "RS256", by: "lead" });
      expect(architect.toJSON()).toStrictEqual(reviewer.toJSON());
      expect(await episodeTypes(store)).toContain("escalation_resolution");
      const timeline = await store.getTimeline("run-1");
      const announcement = timeline.episodes.find((episode) => episode.type === "escalation");
      expect(announcement?.payload).toMatchObject({
        escalationId: "plan/token#0",
        reason: "concurrent-register",
        target: "plan/token",
      });
    });

    it("a dispute after a resolution is the next generation, and the resolved one stays resolved", async () => {
      const store = memoryStore();
      const architect = await open(store, "architect", { live: false });
      const reviewer = await open(store, "reviewer", { live: false });
      await architect.put("plan", "token", "RS256");
      await reviewer.put("plan", "token", "HS256");
      await architect.sync();
      await architect.resolve("plan/token#0", "RS256", { by: "lead" });
      await reviewer.sync();
      expect(reviewer.get("plan", "token")).toBe("RS256");

      // Both had seen the resolution; they disagree again, concurrently.
      await architect.put("plan", "token", "ES256");
      await reviewer.put("plan", "token", "EdDSA");
      await architect.sync();
      await reviewer.sync();
      for (const replica of [architect, reviewer]) {
        const disputed = replica.get("plan", "token");
        expect(disputed).toBeInstanceOf(Disputed);
        expect((disputed as Disputed).escalationId).toBe("plan/token#1");
        expect(
          (disputed as Disputed).contenders.map((contender) => contender.value).sort(),
        ).toEqual(["ES256", "EdDSA"]);
        expect(
          replica.escalations().map((escalation) => [escalation.id, escalation.resolution?.value]),
        ).toEqual([
          ["plan/token#0", "RS256"],
          ["plan/token#1", undefined],
        ]);
      }
    });

    it("attributes writes made on behalf of other agents", async () => {
      const store = memoryStore();
      const runner = await open(store, "runner");
      await runner.actingAs("tester").put("plan", "notes", "tests pass");
      await runner.put("plan", "notes", "tests pass\nshipped");
      expect(runner.attribution("plan", "notes")).toEqual([
        { agentId: "tester", text: "tests pass", at: 1 },
        { agentId: "runner", text: "shipped", at: 2 },
      ]);
      const sources = (await store.getTimeline("run-1")).episodes.map((episode) => episode.source);
      expect(sources).toEqual(["tester", "runner"]);
    });

    it("a throwing listener stops neither the other listeners, the publish, nor the announcement", async () => {
      const store = memoryStore();
      const errors: unknown[] = [];
      const architect = await open(store, "architect", {
        live: false,
        onError: (error) => errors.push(error),
      });
      const reviewer = await open(store, "reviewer", { live: false });
      const changeFailure = new Error("change listener failed");
      const escalationFailure = new Error("escalation listener failed");
      const changes: string[] = [];
      const raised: string[] = [];
      architect.onChange(() => {
        throw changeFailure;
      });
      architect.onChange((change) => changes.push(change.agentId));
      architect.onEscalation(() => {
        throw escalationFailure;
      });
      architect.onEscalation((escalation) => raised.push(escalation.id));
      await architect.put("plan", "token", "RS256");
      await reviewer.put("plan", "token", "HS256");
      await architect.sync();
      expect(changes).toEqual(["architect", "reviewer"]);
      expect(raised).toEqual(["plan/token#0"]);
      expect(errors).toEqual([changeFailure, changeFailure, escalationFailure]);
      // The local write was published despite its listener, and the escalation announced once.
      await reviewer.sync();
      expect(reviewer.get("plan", "token")).toBeInstanceOf(Disputed);
      expect((await episodeTypes(store)).filter((type) => type === "escalation")).toHaveLength(1);
    });

    it("refuses writes after close", async () => {
      const store = memoryStore();
      const state = await open(store, "coder");
      await state.close();
      await expect(state.put("plan", "x", 1)).rejects.toBeInstanceOf(SharedStateClosedError);
    });
  });

  describe("persistence", () => {
    it("a replica opened later rebuilds the state, escalations included", async () => {
      const store = memoryStore();
      const a = await open(store, "a", { live: false });
      const b = await open(store, "b", { live: false });
      await a.put("plan", "owner", ["a"]);
      await b.put("plan", "owner", "b");
      await a.put("plan", "config", { db: { host: "h" } });
      await a.sync();
      await b.sync();
      const late = await open(store, "late", { live: false });
      expect(late.toJSON()).toStrictEqual(a.toJSON());
      expect(late.escalations()).toStrictEqual(a.escalations());
      expect(late.escalations()).toMatchObject([{ reason: "kind-mismatch", key: "owner" }]);
    });

    it("compacts: opening imports the latest snapshot and only the updates after it", async () => {
      const store = memoryStore();
      const writer = await open(store, "writer", { snapshotEvery: 5 });
      for (let index = 0; index < 12; index++) await writer.put("plan", "tags", [`t${index}`]);
      const types = await episodeTypes(store);
      expect(types.filter((type) => type === "state_snapshot")).toHaveLength(2);
      const reader = await open(store, "reader", { live: false });
      expect(reader.get("plan", "tags")).toEqual(
        Array.from({ length: 12 }, (_, index) => `t${index}`),
      );
      expect(reader.toJSON()).toStrictEqual(writer.toJSON());
    });

    it("a snapshot does not hide an update it does not cover", async () => {
      const store = memoryStore();
      const slow = await open(store, "slow", { live: false });
      const fast = await open(store, "fast", { live: false, snapshotEvery: 2 });
      await slow.put("plan", "tags", ["from-slow"]);
      // fast has not read slow's update, so its snapshots do not cover it.
      await fast.put("plan", "tags", ["f1"]);
      await fast.put("plan", "tags", ["f2"]);
      const reader = await open(store, "reader", { live: false });
      expect(reader.get("plan", "tags")).toEqual(expect.arrayContaining(["from-slow", "f1", "f2"]));
    });
  });

  describe("reading the timeline", () => {
    it("terminates against a store that ignores offset (Statewave v0.7.1)", async () => {
      const store = memoryStore();
      const writer = await open(store, "writer", { live: false });
      await writer.put("plan", "tags", ["auth"]);
      // More than one page of other episodes, so a full page is answered again and again.
      for (const batch of [0, 1]) {
        await store.createEpisodesBatch(
          Array.from({ length: 75 }, (_, index) => ({
            subjectId: "run-1",
            source: "planner",
            type: "note",
            payload: { content: `note ${batch}-${index}` },
          })),
        );
      }
      const { store: ignoring, reads } = timelineDouble(store, { ignoreOffset: true });
      const reader = await open(ignoring, "reader", { live: false });
      expect(reader.get("plan", "tags")).toEqual(["auth"]);
      await reader.sync();
      await reader.sync();
      expect(reader.get("plan", "tags")).toEqual(["auth"]);
      // Two reads each: the first page, then the same page again, which stops the loop.
      expect(reads()).toBe(6);
    });

    it("stops at a short page instead of asking for an empty one", async () => {
      const store = memoryStore();
      const writer = await open(store, "writer", { live: false });
      const { store: counted, reads } = timelineDouble(store, { ignoreOffset: false });
      const reader = await open(counted, "reader", { live: false });
      await writer.put("plan", "tags", ["auth"]);
      await reader.sync();
      expect(reader.get("plan", "tags")).toEqual(["auth"]);
      // One read to open (an empty timeline), one per sync.
      expect(reads()).toBe(2);
    });
  });
});
