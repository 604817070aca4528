import { describe, expect, it } from "vitest";
import { EmbeddedStore } from "../../src/context/embedded/embedded-store.js";
import { type InvalidationNotice, SharedContext } from "../../src/context/shared-context.js";
import { SharedState } from "../../src/crdt/shared-state.js";
import { deferred } from "../support/deferred.js";
import {
  decision,
  listen,
  sharedContextSetups,
  subjectId,
} from "./support/shared-context-setups.js";

const { opened, setUp, setUpWithState, raiseDispute } = sharedContextSetups();

describe("SharedContext", () => {
  describe("onInvalidated: escalations", () => {
    it("tells each contender who it is disputed with, and a reader of the field", async () => {
      const { store, shared } = await setUpWithState();
      // The writer read before there was anything to read: it relies on nothing disputed.
      await shared.beforeActing("writer", "Write the docs");
      await shared.decide("lead", "search-index goes to coder-1", decision("search-index"));
      await shared.beforeActing("reviewer", "Review search-index");
      const coder = listen(shared, "coder-1");
      const reviewer = listen(shared, "reviewer");
      const bystander = listen(shared, "writer");
      await shared.beforeActing("coder-1", "Build module search-index");
      await raiseDispute(store, "search-index");
      await shared.beforeActing("lead", "Build module search-index");
      const reason = "modules/search-index is disputed between coder-1 and coder-2";
      expect(coder).toEqual([{ target: "search-index", by: "coder-2", reason }]);
      expect(reviewer).toEqual([{ target: "search-index", by: "coder-1, coder-2", reason }]);
      expect(bystander).toEqual([]);
    });

    it("names the agent itself when it disputes its own write from two replicas", async () => {
      const { store, shared } = await setUpWithState();
      const coder = listen(shared, "coder-1");
      await shared.beforeActing("coder-1", "Build module search-index");
      await raiseDispute(store, "search-index", ["coder-1", "coder-1"]);
      await shared.beforeActing("lead", "Build module search-index");
      expect(coder).toEqual([
        {
          target: "search-index",
          by: "coder-1, coder-1",
          reason: "modules/search-index is disputed between coder-1 and coder-1",
        },
      ]);
    });
    it("tells nobody about a dispute it first sees already settled", async () => {
      const store = new EmbeddedStore({ path: ":memory:" });
      opened.push(store);
      // Not live: the lead sees the dispute and its resolution in one sync.
      const state = await SharedState.open({ store, subjectId, agentId: "lead", live: false });
      opened.push(state);
      const shared = new SharedContext({ store, subjectId, state });
      opened.push(shared);
      await shared.beforeActing("coder-1", "Build module search-index");
      const coder = listen(shared, "coder-1");
      await raiseDispute(store, "search-index");
      const resolver = await SharedState.open({
        store,
        subjectId,
        agentId: "arbiter",
        live: false,
      });
      opened.push(resolver);
      const [escalation] = resolver.escalations();
      await resolver.resolve(escalation?.id ?? "", "one", { by: "arbiter" });
      const read = await shared.beforeActing("coder-1", "Build module search-index");
      expect(state.escalations()).toEqual([expect.objectContaining({ key: "search-index" })]);
      expect(read.disputes).toEqual([]);
      expect(coder).toEqual([]);
    });
  });

  describe("onInvalidated: supersede", () => {
    it("does not tell the writer about its own overrule, and stops when unsubscribed", async () => {
      const { shared } = setUp();
      await shared.decide("project", "cache in use", decision("cache"));
      await shared.beforeActing("coder", "Build module cache");
      await shared.beforeActing("reviewer", "Review module cache");
      await shared.beforeActing("planner", "Decide the fate of cache");
      // The writer read it too, and listens to nothing: telling nobody is no error.
      await shared.beforeActing("writer", "Write the docs");
      const planner = listen(shared, "planner");
      const reviewer = listen(shared, "reviewer");
      const unsubscribed: InvalidationNotice[] = [];
      const stop = shared.onInvalidated("reviewer", (notice) => unsubscribed.push(notice));
      stop();
      const told = deferred<InvalidationNotice>();
      shared.onInvalidated("coder", told.resolve);
      await shared.decide("planner", "Retire cache", decision("cache"));
      expect(await told.promise).toMatchObject({ target: "cache", by: "planner" });
      expect(planner).toEqual([]);
      expect(reviewer).toEqual([expect.objectContaining({ by: "planner" })]);
      expect(unsubscribed).toEqual([]);
      await expect(shared.beforeActing("coder", "Build module cache")).resolves.toBeDefined();
    });

    it("names the replacement with the same target, not the newest decision", async () => {
      const { store, shared } = setUp();
      const { memories } = await shared.decide("project", "cache in use", decision("cache"));
      await shared.beforeActing("coder", "Build module cache");
      const told = deferred<InvalidationNotice>();
      shared.onInvalidated("coder", told.resolve);
      // Another writer's episodes, compiled together: a decision on another target comes last.
      await store.createEpisode({
        subjectId,
        source: "planner",
        type: "architectural_decision",
        payload: { content: "Retire cache", target: "cache" },
        provenance: { read_memory_ids: [memories[0]?.id ?? ""] },
      });
      await store.createEpisode({
        subjectId,
        source: "lead",
        type: "architectural_decision",
        payload: { content: "Use RS256", target: "jwt" },
      });
      await store.compileMemories(subjectId);
      expect(await told.promise).toMatchObject({
        by: "planner",
        reason: "superseded by planner: Retire cache",
      });
    });

    it("says what was superseded when the replacement cannot be found", async () => {
      const { store, shared } = setUp();
      const { memories } = await shared.decide("project", "cache in use", decision("cache"));
      await shared.beforeActing("coder", "Build module cache");
      await shared.beforeActing("planner", "Decide the fate of cache");
      const told = deferred<InvalidationNotice>();
      shared.onInvalidated("coder", told.resolve);
      const list = store.listMemories.bind(store);
      // The replacement was itself replaced (or deleted) before the lookup ran.
      store.listMemories = async (id, query) =>
        query?.kind === "architectural_decision" && query.targets?.includes("cache")
          ? { memories: [], nextCursor: null }
          : list(id, query);
      await shared.decide("planner", "Retire cache", decision("cache"));
      expect(await told.promise).toEqual({
        memoryId: memories[0]?.id,
        target: "cache",
        by: "unknown",
        reason: "cache was superseded",
      });
    });
  });

  describe("onInvalidated: contradiction", () => {
    it("tells only the readers of the contradicted memory, never its contradictor", async () => {
      const { shared } = setUp();
      // The writer read before there was anything to read.
      await shared.beforeActing("writer", "Write the docs");
      const a = await shared.decide("planner-a", "Deprecate cache", decision("cache"));
      await shared.beforeActing("coder", "Build module cache");
      const coder = listen(shared, "coder");
      const writer = listen(shared, "writer");
      const plannerB = listen(shared, "planner-b");
      await shared.decide("planner-b", "Keep cache", {
        ...decision("cache"),
        // planner-b names a memory it read, not the one it contradicts.
        readMemoryIds: ["m-elsewhere"],
      });
      expect(coder).toEqual([
        {
          memoryId: a.memories[0]?.id,
          target: "cache",
          by: "planner-b",
          reason: 'cache is disputed: planner-b contradicts it ("Keep cache")',
        },
      ]);
      expect(writer).toEqual([]);
      expect(plannerB).toEqual([]);
    });
  });

  describe("onInvalidated: contradiction by an earlier reader", () => {
    it("does not tell the contradictor, even when it had read the memory before", async () => {
      const { shared } = setUp();
      const a = await shared.decide("reviewer-a", "The login form leaks the token", {
        kind: "review_finding",
        target: "login-form",
      });
      const first = await shared.beforeActing("reviewer-b", "Review the login form token");
      expect(first.bundle.facts.map((memory) => memory.id)).toEqual([a.memories[0]?.id]);
      // Its latest read no longer has it (a tiny budget), so its finding does not supersede it.
      await shared.beforeActing("reviewer-b", "Review the login form token", { maxTokens: 1 });
      const reviewerB = listen(shared, "reviewer-b");
      const b = await shared.decide("reviewer-b", "The login form is fine", {
        kind: "review_finding",
        target: "login-form",
      });
      expect(b.memories[0]?.metadata.contradicts).toEqual([a.memories[0]?.id]);
      expect(reviewerB).toEqual([]);
    });
  });
});
