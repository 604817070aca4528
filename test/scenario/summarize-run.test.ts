import { describe, expect, it } from "vitest";
import type { ScenarioEvent } from "../../src/scenario/scenario-events.js";
import { type SummaryContext, summarizeRun } from "../../src/scenario/summarize-run.js";

const context: SummaryContext = {
  runId: "sw-00000000",
  mode: "statewave",
  scenario: "tiny",
  task: "Build things",
  brain: "offline (deterministic)",
  thinkingTokens: 700,
  endAt: 9000,
};

/** A run event as the runner stamps it. */
function event(fields: Record<string, unknown>): ScenarioEvent {
  return { runId: context.runId, at: 0, ...fields } as unknown as ScenarioEvent;
}

const cancel = (fields: Record<string, unknown> = {}) =>
  event({
    type: "module-cancel",
    agentId: "coder",
    module: "legacy-cache",
    reason: "deprecated",
    causedBy: "planner",
    tokensSpent: 400,
    msSpent: 800,
    ...fields,
  });

const skip = (fields: Record<string, unknown>) =>
  event({ type: "module-skip", agentId: "coder", module: "m", reason: "r", ...fields });

const deprecate = (target: string) =>
  event({
    type: "decision-write",
    agentId: "planner",
    kind: "architectural_decision",
    target,
    value: "deprecate",
    content: `Deprecate ${target}`,
  });

describe("summarizeRun", () => {
  describe("summary.reproducible", () => {
    it("is true unless the context says otherwise", () => {
      expect(summarizeRun([], context).reproducible).toBe(true);
      expect(summarizeRun([], { ...context, reproducible: false }).reproducible).toBe(false);
    });
  });

  describe("summary.totals", () => {
    it("adds thinking, finished builds and cut-short builds", () => {
      const summary = summarizeRun(
        [
          event({ type: "module-end", agentId: "coder", module: "a", tokens: 2500, ms: 4000 }),
          event({ type: "module-end", agentId: "coder", module: "b", tokens: 2400, ms: 4000 }),
          cancel(),
        ],
        context,
      );
      expect(summary.totals).toEqual({ tokens: 700 + 2500 + 2400 + 400, ms: 9000 });
      expect(summary.wasted).toEqual({ modules: 0, tokens: 400, ms: 800 });
    });
  });

  describe("summary.avoidedBy", () => {
    it("credits a cut-short build to its mechanism, mid-build invalidation when it names none", () => {
      const summary = summarizeRun(
        [deprecate("legacy-cache"), cancel(), cancel({ mechanism: "mid-build invalidation" })],
        context,
      );
      expect(summary.conflictsAvoided).toBe(2);
      expect(summary.avoidedBy).toEqual({ "mid-build invalidation": 2 });
    });

    it("credits a skip caused by someone to its mechanism, and a skip caused by nobody to none", () => {
      const summary = summarizeRun(
        [
          deprecate("m"),
          skip({ causedBy: "planner", mechanism: "read-before-act" }),
          skip({ causedBy: null, mechanism: null }),
          skip({ causedBy: null, mechanism: "atomic claim" }),
        ],
        context,
      );
      expect(summary.conflictsAvoided).toBe(1);
      expect(summary.avoidedBy).toEqual({ "read-before-act": 1 });
    });

    it("credits nothing for a skip the final decisions do not justify (the module stays)", () => {
      const summary = summarizeRun(
        [skip({ causedBy: "planner", mechanism: "read-before-act" })],
        context,
      );
      expect(summary.conflictsAvoided).toBe(0);
      expect(summary.collision).toBe(true);
      expect(summary.referee?.droppedModules).toEqual(["m"]);
    });
  });

  describe("summary.read", () => {
    it("counts the reads, their tokens and the largest", () => {
      const read = (tokens?: number) =>
        event({
          type: "context-read",
          agentId: "coder",
          memoryIds: [],
          ...(tokens ? { tokens } : {}),
        });
      expect(summarizeRun([read(120), read(300), read()], context).read).toEqual({
        tokens: 420,
        largest: 300,
        reads: 3,
      });
    });
  });

  describe("summary.wastedModules", () => {
    it("comes from the referee, not from the Reviewer's findings: built on a retired module, or built twice", () => {
      const build = (module: string, agentId = "coder") =>
        event({ type: "module-end", agentId, module, tokens: 100, ms: 10 });
      const summary = summarizeRun(
        [
          build("redis-cache"),
          build("redis-cache", "coder-2"),
          deprecate("legacy-cache"),
          { ...build("legacy-cache"), at: 500 },
          // A Reviewer's finding on a module the final state does not retire counts for nothing.
          event({
            type: "collision",
            module: "search",
            detectedBy: "reviewer",
            agents: ["planner", "coder"],
            description: "d",
            wastedTokens: 100,
            wastedMs: 10,
            cause: "read-before-act",
          }),
        ],
        context,
      );
      expect(summary.wastedModules).toEqual(["legacy-cache", "redis-cache"]);
      expect(summary.referee?.wastedModules).toEqual(summary.wastedModules);
      expect(summary.collision).toBe(true);
      expect(summary.collisionCause).toBe("read-before-act");
      expect(summary.wasted).toEqual({ modules: 2, tokens: 200, ms: 20 });
    });
  });
});
