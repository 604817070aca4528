import { afterEach, describe, expect, it } from "vitest";
import { EmbeddedStore } from "../../src/context/embedded-store.js";
import { type InvalidationNotice, SharedContext } from "../../src/context/shared-context.js";

const opened: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  for (const item of opened.splice(0).reverse()) await item.close();
});

function setUp() {
  const store = new EmbeddedStore({ path: ":memory:" });
  const shared = new SharedContext({ store, subjectId: "project-1" });
  opened.push(store, shared);
  return { store, shared };
}

describe("SharedContext", () => {
  describe("decide", () => {
    it("publishes an episode that is a memory at once", async () => {
      const { shared } = setUp();
      const { episode, memories } = await shared.decide(
        "planner",
        "Deprecate legacy-session-token",
        {
          kind: "architectural_decision",
          target: "legacy-session-token",
        },
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
      await shared.decide("planner", "Deprecate legacy-session-token (replaced by JWT)", {
        kind: "architectural_decision",
        target: "legacy-session-token",
      });
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
      await shared.decide("planner", "Use RS256 for JWT signing", {
        kind: "architectural_decision",
        target: "jwt-signing",
      });
      const third = await shared.beforeActing("coder", "Build module jwt-issuer");
      expect(third.changedSinceLastRead.map((memory) => memory.content)).toEqual([
        "Use RS256 for JWT signing",
      ]);
    });
  });

  describe("onInvalidated", () => {
    it("tells a reader when a memory it read is superseded by someone else", async () => {
      const { shared } = setUp();
      await shared.decide("project", "legacy-cache is in use", {
        kind: "architectural_decision",
        target: "legacy-cache",
      });
      await shared.beforeActing("coder", "Build module legacy-cache");
      const notices: InvalidationNotice[] = [];
      const received = new Promise<void>((resolve) => {
        shared.onInvalidated("coder", (notice) => {
          notices.push(notice);
          resolve();
        });
      });
      const other: InvalidationNotice[] = [];
      shared.onInvalidated("reviewer", (notice) => other.push(notice));
      await shared.decide("planner", "Retire legacy-cache", {
        kind: "architectural_decision",
        target: "legacy-cache",
      });
      await received;
      expect(notices).toEqual([
        expect.objectContaining({
          by: "planner",
          reason: "legacy-cache changed: Retire legacy-cache",
        }),
      ]);
      expect(notices[0]?.memoryId).toBeDefined();
      expect(other).toEqual([]);
    });

    it("stays quiet after close", async () => {
      const { shared } = setUp();
      await shared.decide("project", "x is in use", {
        kind: "architectural_decision",
        target: "x",
      });
      await shared.beforeActing("coder", "Build module x");
      const notices: InvalidationNotice[] = [];
      shared.onInvalidated("coder", (notice) => notices.push(notice));
      await shared.close();
      await shared.decide("planner", "Retire x", { kind: "architectural_decision", target: "x" });
      await new Promise((resolve) => setImmediate(resolve));
      expect(notices).toEqual([]);
    });
  });
});
