import { describe, expect, it } from "vitest";
import type { CreateEpisodeInput } from "../../src/context/context-store.js";
import { EmbeddedStore } from "../../src/context/embedded/embedded-store.js";
import { type InvalidationNotice, SharedContext } from "../../src/context/shared-context.js";
import { SharedState } from "../../src/crdt/shared-state.js";
import { deferred } from "../support/deferred.js";
import { closeAfterEach } from "./support/shared-context-fixture.js";

const subjectId = "project-1";
const opened = closeAfterEach();

function setUp(options: { onError?: (error: unknown) => void; state?: SharedState } = {}) {
  const store = new EmbeddedStore({ path: ":memory:" });
  const shared = new SharedContext({ store, subjectId, ...options });
  opened.push(store, shared);
  return { store, shared };
}

/** A shared context over a live shared state, as a lead agent runs it. */
async function setUpWithState() {
  const store = new EmbeddedStore({ path: ":memory:" });
  opened.push(store);
  const state = await SharedState.open({ store, subjectId, agentId: "lead" });
  opened.push(state);
  const shared = new SharedContext({ store, subjectId, state });
  opened.push(shared);
  return { store, state, shared };
}

/** Two replicas that have not seen each other write different values to one field. */
async function raiseDispute(
  store: EmbeddedStore,
  key: string,
  agents: readonly [string, string] = ["coder-1", "coder-2"],
) {
  const replicas = await Promise.all(
    // Fixed peer ids: the contenders' order is the same on every run.
    agents.map((agentId, index) =>
      SharedState.open({ store, subjectId, agentId, live: false, peerId: index + 1 }),
    ),
  );
  opened.push(...replicas);
  await replicas[0]?.put("modules", key, "one");
  await replicas[1]?.put("modules", key, "two");
}

function listen(shared: SharedContext, callerId: string): InvalidationNotice[] {
  const notices: InvalidationNotice[] = [];
  shared.onInvalidated(callerId, (notice) => notices.push(notice));
  return notices;
}

const decision = (target: string) => ({ kind: "architectural_decision", target });

describe("SharedContext details", () => {
  describe("decide", () => {
    it("publishes the content, target, confidence and payload it is given", async () => {
      const { shared } = setUp();
      const { episode, memories } = await shared.decide("planner", "Use RS256", {
        kind: "architectural_decision",
        target: "jwt-signing",
        confidence: 0.4,
        payload: { content: "overridden", ticket: "SEC-1" },
      });
      expect(episode).toMatchObject({
        subjectId,
        source: "planner",
        type: "architectural_decision",
        payload: { content: "Use RS256", target: "jwt-signing", confidence: 0.4, ticket: "SEC-1" },
        provenance: { read_memory_ids: [] },
      });
      expect(memories).toEqual([
        expect.objectContaining({ content: "Use RS256", confidence: 0.4, status: "active" }),
      ]);
      expect(memories[0]?.metadata).toMatchObject({ source: "planner", target: "jwt-signing" });
    });

    it("leaves target and confidence out of the payload when not given", async () => {
      const { store, shared } = setUp();
      const sent: CreateEpisodeInput[] = [];
      const createEpisode = store.createEpisode.bind(store);
      store.createEpisode = (input, options) => {
        sent.push(input);
        return createEpisode(input, options);
      };
      await shared.decide("coder", "Built the login form", { kind: "implementation_note" });
      // Not even as undefined keys: a store that keeps objects as they are would list them.
      expect(sent.map((input) => Object.keys(input.payload))).toEqual([["content"]]);
    });

    it("returns only the memories of its own episode", async () => {
      const { store, shared } = setUp();
      // Someone else's episode, not compiled yet: decide's compile picks it up too.
      await store.createEpisode({
        subjectId,
        source: "coder",
        type: "implementation_note",
        payload: { content: "Built the login form" },
      });
      const { memories } = await shared.decide("planner", "Use RS256", decision("jwt"));
      expect(memories.map((memory) => memory.content)).toEqual(["Use RS256"]);
    });

    it("lists a memory id once in provenance even when read and declared", async () => {
      const { shared } = setUp();
      const first = await shared.decide("project", "cache in use", decision("cache"));
      const id = first.memories[0]?.id ?? "";
      await shared.beforeActing("planner", "Decide the fate of cache");
      const { episode } = await shared.decide("planner", "Retire cache", {
        ...decision("cache"),
        readMemoryIds: [id],
      });
      expect(episode.provenance).toEqual({ read_memory_ids: [id] });
    });
  });

  describe("beforeActing", () => {
    it("reports only decisions in `decisions`, and passes the token budget on", async () => {
      const { shared } = setUp();
      await shared.decide("coder", "Built the login form with a long description", {
        kind: "implementation_note",
        target: "login-form",
      });
      await shared.decide("planner", "Use RS256", decision("jwt"));
      const read = await shared.beforeActing("coder", "login form jwt");
      expect(read.decisions.map((memory) => memory.content)).toEqual(["Use RS256"]);
      expect(read.bundle.facts).toHaveLength(2);
      expect(read.assembledContext).toBe(read.bundle.assembledContext);

      const small = await shared.beforeActing("coder", "login form jwt", { maxTokens: 8 });
      expect(small.bundle.facts).toEqual([]);
      expect(small.assembledContext).toBe("## Task\nlogin form jwt\n");
    });

    it("reports as changed what the caller itself had not received, per caller", async () => {
      const { shared } = setUp();
      await shared.decide("planner", "Use RS256", decision("jwt"));
      expect((await shared.beforeActing("coder", "jwt")).changedSinceLastRead).toHaveLength(1);
      expect((await shared.beforeActing("reviewer", "jwt")).changedSinceLastRead).toHaveLength(1);
      expect((await shared.beforeActing("coder", "jwt")).changedSinceLastRead).toEqual([]);
    });
  });

  describe("beforeActing: contradictions", () => {
    it("looks up the other sides of a dispute that is not about decisions", async () => {
      const { shared } = setUp();
      const a = await shared.decide("reviewer-a", "The login form leaks the token", {
        kind: "review_finding",
        target: "login-form",
      });
      const b = await shared.decide("reviewer-b", "The login form is fine", {
        kind: "review_finding",
        target: "login-form",
      });
      const read = await shared.beforeActing("coder", "fix the login form token");
      expect(read.contradictions).toEqual([
        { kind: "review_finding", target: "login-form", memories: [a.memories[0], b.memories[0]] },
      ]);
    });

    it("asks the store once per kind, reusing the decisions it just read", async () => {
      const { store, shared } = setUp();
      for (const target of ["login-form", "signup-form"]) {
        for (const reviewer of ["reviewer-a", "reviewer-b"]) {
          await shared.decide(reviewer, `${reviewer} on the ${target}`, {
            kind: "review_finding",
            target,
          });
        }
      }
      await shared.decide("planner-a", "Deprecate cache", decision("cache"));
      await shared.decide("planner-b", "Keep cache", decision("cache"));
      const kinds: Array<string | undefined> = [];
      const search = store.searchMemories.bind(store);
      store.searchMemories = (id, options) => {
        kinds.push(options?.kind);
        return search(id, options);
      };
      const read = await shared.beforeActing("coder", "login form signup form cache");
      expect(read.contradictions.map((dispute) => dispute.target).sort()).toEqual([
        "cache",
        "login-form",
        "signup-form",
      ]);
      expect(kinds).toEqual(["architectural_decision", "review_finding"]);
    });

    it("reports one dispute per kind and target, with every side oldest first", async () => {
      const { shared } = setUp();
      const sides = [];
      for (const [planner, content] of [
        ["planner-a", "Deprecate cache"],
        ["planner-b", "Keep cache"],
        ["planner-c", "Shard cache"],
      ] as const) {
        sides.push((await shared.decide(planner, content, decision("cache"))).memories[0]);
      }
      await shared.decide("planner-d", "Use RS256", decision("jwt"));
      const read = await shared.beforeActing("coder", "Build module cache");
      expect(read.contradictions).toEqual([
        { kind: "architectural_decision", target: "cache", memories: sides },
      ]);
    });
  });

  describe("beforeActing: disputes", () => {
    it("reports the shared state's open escalations, not the resolved ones", async () => {
      const { store, state, shared } = await setUpWithState();
      await raiseDispute(store, "search-index");
      const read = await shared.beforeActing("coder-1", "Build module search-index");
      expect(read.disputes).toEqual([
        expect.objectContaining({
          namespace: "modules",
          key: "search-index",
          reason: "concurrent-register",
        }),
      ]);
      const contenders = read.disputes[0]?.contenders ?? [];
      expect(contenders.map((contender) => contender.agentId).sort()).toEqual([
        "coder-1",
        "coder-2",
      ]);
      await state.resolve(read.disputes[0]?.id ?? "", "one", { by: "lead" });
      expect((await shared.beforeActing("coder-1", "Build module search-index")).disputes).toEqual(
        [],
      );
    });
  });

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
      const search = store.searchMemories.bind(store);
      // The replacement was itself replaced (or deleted) before the lookup ran.
      store.searchMemories = async (id, options) =>
        options?.kind === "architectural_decision" && options.limit === 100 && !options.q
          ? []
          : search(id, options);
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

  describe("background errors", () => {
    it("keeps an error onError throws and throws it from the next beforeActing", async () => {
      const reporterFailure = new Error("reporter failed");
      const { shared } = setUp({
        onError: () => {
          throw reporterFailure;
        },
      });
      await shared.decide("project", "cache in use", decision("cache"));
      await shared.beforeActing("coder", "Build module cache");
      await shared.beforeActing("planner", "Decide the fate of cache");
      const thrown = deferred();
      shared.onInvalidated("coder", () => {
        thrown.resolve();
        throw new Error("listener failed");
      });
      await shared.decide("planner", "Retire cache", decision("cache"));
      await thrown.promise;
      await expect(shared.beforeActing("coder", "Build module cache")).rejects.toBe(
        reporterFailure,
      );
    });
  });

  describe("close", () => {
    it("is idempotent and does not start watching again on a later read", async () => {
      const { store, shared } = setUp();
      let watches = 0;
      const watch = store.watch.bind(store);
      store.watch = (...args) => {
        watches++;
        return watch(...args);
      };
      await shared.beforeActing("coder", "anything");
      await shared.beforeActing("coder", "anything");
      expect(watches).toBe(1);
      await shared.close();
      await shared.close();
      await shared.beforeActing("coder", "anything");
      shared.onInvalidated("coder", () => {});
      expect(watches).toBe(1);
    });
  });
});
