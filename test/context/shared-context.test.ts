import { describe, expect, it } from "vitest";
import type { InvalidationNotice, SharedContext } from "../../src/context/shared-context.js";
import { deferred } from "../support/deferred.js";
import { plannersDisagree } from "../support/fixtures/planners-disagree.js";
import {
  decision,
  listen,
  listenForFirst,
  sharedContextSetups,
} from "./support/shared-context-setups.js";

const { setUp } = sharedContextSetups();

/** Two callers have read a memory the Planner then supersedes knowingly. */
async function readThenSupersede(shared: SharedContext, before: () => void = () => {}) {
  await shared.decide("project", "legacy-cache is in use", decision("legacy-cache"));
  await shared.beforeActing("coder", "Build module legacy-cache");
  await shared.beforeActing("reviewer", "Review module legacy-cache");
  await shared.beforeActing("planner", "Decide the fate of legacy-cache");
  before();
  await shared.decide("planner", "Retire legacy-cache", decision("legacy-cache"));
}

describe("SharedContext", () => {
  describe("decide", () => {
    it("publishes an episode that is a memory at once", async () => {
      const { shared } = setUp();
      const { episode, memories } = await shared.decide(
        "planner",
        "Deprecate legacy-session-token",
        decision("legacy-session-token"),
      );
      expect(episode.source).toBe("planner");
      expect(episode.payload).toMatchObject({
        content: "Deprecate legacy-session-token",
        target: "legacy-session-token",
      });
      expect(memories).toHaveLength(1);
      expect(memories[0]).toMatchObject({ kind: "architectural_decision", status: "active" });
    });
  });

  describe("beforeActing", () => {
    it("returns the decisions, ranked context and what changed since the caller's last read", async () => {
      const { shared } = setUp();
      await shared.decide(
        "planner",
        "Deprecate legacy-session-token (replaced by JWT)",
        decision("legacy-session-token"),
      );
      const first = await shared.beforeActing("coder", "Build module legacy-session-token");
      expect(first.decisions.map((memory) => memory.content)).toEqual([
        "Deprecate legacy-session-token (replaced by JWT)",
      ]);
      expect(first.assembledContext).toContain("## Task\nBuild module legacy-session-token");
      expect(first.assembledContext).toContain("legacy-session-token");
      expect(first.changedSinceLastRead).toHaveLength(1);
      expect(first.disputes).toEqual([]);

      const again = await shared.beforeActing("coder", "Build module legacy-session-token");
      expect(again.changedSinceLastRead).toEqual([]);
      await shared.decide("planner", "Use RS256 for JWT signing", decision("jwt-signing"));
      const third = await shared.beforeActing("coder", "Build module jwt-issuer");
      expect(third.changedSinceLastRead.map((memory) => memory.content)).toEqual([
        "Use RS256 for JWT signing",
      ]);
    });
  });

  describe("decide: supersede needs knowledge", () => {
    it("records what the caller's latest beforeActing returned as provenance.read_memory_ids", async () => {
      const { shared } = setUp();
      const { memories } = await shared.decide(
        "project",
        "legacy-cache is in use",
        decision("legacy-cache"),
      );
      await shared.beforeActing("planner", "Decide the fate of legacy-cache");
      const { episode } = await shared.decide("planner", "Retire legacy-cache", {
        kind: "architectural_decision",
        target: "legacy-cache",
        readMemoryIds: ["learned-elsewhere"],
      });
      expect(episode.provenance).toEqual({
        read_memory_ids: [memories[0]?.id, "learned-elsewhere"],
      });
      const read = await shared.beforeActing("coder", "Build module legacy-cache");
      expect(read.decisions.map((memory) => memory.content)).toEqual(["Retire legacy-cache"]);
      expect(read.contradictions).toEqual([]);
    });

    it("keeps both sides when the second writer had not read the first, and reports the dispute", async () => {
      const { shared } = setUp();
      // Both Planners read before either decided: neither knew the other's decision.
      await shared.beforeActing("planner-a", "Decide the fate of legacy-cache");
      await shared.beforeActing("planner-b", "Decide the fate of legacy-cache");
      const [a, b] = await plannersDisagree(shared, "legacy-cache");
      expect(b.memories[0]?.metadata.contradicts).toEqual([a.memories[0]?.id]);

      const read = await shared.beforeActing("coder", "Build module legacy-cache");
      expect(read.decisions.map((memory) => memory.content).sort()).toEqual([
        "Deprecate legacy-cache",
        "Keep legacy-cache",
      ]);
      expect(read.contradictions).toEqual([
        {
          kind: "architectural_decision",
          target: "legacy-cache",
          memories: [a.memories[0], b.memories[0]],
        },
      ]);
      expect(read.assembledContext).toContain("Deprecate legacy-cache (planner-a)");
      expect(read.assembledContext).toContain("Keep legacy-cache (planner-b)");
    });

    it("settles the dispute when a Planner overrules the other side knowingly", async () => {
      const { shared } = setUp();
      await plannersDisagree(shared, "legacy-cache");
      // planner-a now reads both and restates: its own old decision and planner-b's go.
      await shared.beforeActing("planner-a", "Decide the fate of legacy-cache");
      await shared.decide(
        "planner-a",
        "Deprecate legacy-cache, agreed with planner-b",
        decision("legacy-cache"),
      );
      const read = await shared.beforeActing("coder", "Build module legacy-cache");
      expect(read.decisions.map((memory) => memory.content)).toEqual([
        "Deprecate legacy-cache, agreed with planner-b",
      ]);
      expect(read.contradictions).toEqual([]);
    });
  });

  describe("onInvalidated", () => {
    it("tells a reader when a memory it read is superseded by someone else", async () => {
      const { shared } = setUp();
      await shared.decide("project", "legacy-cache is in use", decision("legacy-cache"));
      await shared.beforeActing("coder", "Build module legacy-cache");
      const { notices, first } = listenForFirst(shared, "coder");
      const other = listen(shared, "reviewer");
      // The Planner read the inventory memory, so its decision overrules it.
      await shared.beforeActing("planner", "Decide the fate of legacy-cache");
      await shared.decide("planner", "Retire legacy-cache", decision("legacy-cache"));
      await first;
      expect(notices).toEqual([
        expect.objectContaining({
          by: "planner",
          reason: "superseded by planner: Retire legacy-cache",
        }),
      ]);
      expect(notices[0]?.memoryId).toBeDefined();
      expect(other).toEqual([]);
    });

    it("tells a reader when a memory it read becomes disputed by someone who had not seen it", async () => {
      const { shared } = setUp();
      await shared.decide("planner-a", "Deprecate legacy-cache", decision("legacy-cache"));
      await shared.beforeActing("coder", "Build module legacy-cache");
      const { notices, first } = listenForFirst(shared, "coder");
      await shared.decide("planner-b", "Keep legacy-cache", decision("legacy-cache"));
      await first;
      expect(notices).toEqual([
        expect.objectContaining({
          target: "legacy-cache",
          by: "planner-b",
          reason: 'legacy-cache is disputed: planner-b contradicts it ("Keep legacy-cache")',
        }),
      ]);
    });

    it("reports a throwing listener to onError and still tells the other listeners", async () => {
      const errors: unknown[] = [];
      const { shared } = setUp({ onError: (error) => errors.push(error) });
      const failure = new Error("listener failed");
      shared.onInvalidated("coder", () => {
        throw failure;
      });
      const told = new Promise<InvalidationNotice>((resolve) => {
        shared.onInvalidated("reviewer", resolve);
      });
      await readThenSupersede(shared);
      expect(await told).toMatchObject({ by: "planner" });
      expect(errors).toEqual([failure]);
    });

    it("reports a failed replacement lookup (listMemories rejects) to onError, once", async () => {
      const reported = deferred<unknown>();
      const { store, shared } = setUp({ onError: reported.resolve });
      const notices = listen(shared, "coder");
      const failure = new Error("connection refused");
      let searches = 0;
      await readThenSupersede(shared, () => {
        store.listMemories = async () => {
          searches++;
          throw failure;
        };
      });
      expect(await reported.promise).toBe(failure);
      // One lookup for both readers, not one per reader.
      expect(searches).toBe(1);
      expect(notices).toEqual([]);
    });

    it("without onError, throws a listener's error from the next beforeActing, once", async () => {
      const { shared } = setUp();
      const failure = new Error("listener failed");
      const thrown = deferred();
      shared.onInvalidated("coder", () => {
        thrown.resolve();
        throw failure;
      });
      await readThenSupersede(shared);
      await thrown.promise;
      await expect(shared.beforeActing("coder", "Build module legacy-cache")).rejects.toBe(failure);
      await expect(
        shared.beforeActing("coder", "Build module legacy-cache"),
      ).resolves.toBeDefined();
    });

    it("stays quiet after close", async () => {
      const { shared } = setUp();
      await shared.decide("project", "x is in use", decision("x"));
      await shared.beforeActing("coder", "Build module x");
      const notices = listen(shared, "coder");
      await shared.close();
      await shared.decide("planner", "Retire x", decision("x"));
      await new Promise((resolve) => setImmediate(resolve));
      expect(notices).toEqual([]);
    });
  });
});
