import { describe, expect, it } from "vitest";
import { listScenarios, loadScenario } from "../../../src/scenario/load-scenario.js";
import { judgeRun } from "../../../src/scenario/referee/judge-run.js";
import { runModes, type ScenarioEvent } from "../../../src/scenario/scenario-events.js";
import { runToEnd } from "../support/run-scenario.js";

const scenarios = (await listScenarios()).map((listed) => listed.name);

let clock = 0;
/** A run event as the runner stamps it, each one 100 ms after the last. */
function event(fields: Record<string, unknown>): ScenarioEvent {
  clock += 100;
  return { runId: "bc-00000000", at: clock, ...fields } as unknown as ScenarioEvent;
}
const start = (mode = "broadcast", dependsOn?: Record<string, string[]>) =>
  event({
    type: "run-start",
    mode,
    scenario: "hand-made",
    task: "t",
    brain: "offline (deterministic)",
    agents: [
      { id: "planner", role: "planner", name: "Planner", color: "cyan" },
      { id: "planner-b", role: "planner", name: "Planner B", color: "blue" },
      { id: "coder", role: "coder", name: "Coder", color: "magenta" },
      { id: "coder-2", role: "coder", name: "Coder 2", color: "green" },
      { id: "reviewer", role: "reviewer", name: "Reviewer", color: "yellow" },
    ],
    ...(dependsOn ? { dependsOn } : {}),
  });
const plan = (modules: string[], agentId = "coder") =>
  event({ type: "agent-log", agentId, text: `Plan: ${modules.join(", ")}`, plan: modules });
const decide = (
  decisionId: string,
  target: string,
  value: string,
  extra: Record<string, unknown> = {},
) =>
  event({
    type: "decision-write",
    agentId: decisionId.split("#")[0],
    kind: "architectural_decision",
    target,
    value,
    content: `${value} ${target}`,
    decisionId,
    ...extra,
  });
const read = (agentId: string, decisionIds: string[]) =>
  event({
    type: "context-read",
    agentId,
    task: "t",
    memoryIds: [],
    decisions: [],
    decisionIds,
    disputes: [],
  });
const built = (module: string, agentId = "coder") => [
  event({ type: "module-start", agentId, module, estimatedMs: 1000 }),
  event({ type: "module-end", agentId, module, tokens: 1000, ms: 1000 }),
];
const skipped = (module: string, causedBy: string | null = "planner", agentId = "coder") =>
  event({
    type: "module-skip",
    agentId,
    module,
    reason: "r",
    causedBy,
    mechanism: "read-before-act",
  });

describe("judgeRun", () => {
  describe("the final authoritative decision state", () => {
    it("a decision overrules the ones its author had read: a reversal read stands", () => {
      const judgement = judgeRun([
        start(),
        plan(["cache"]),
        decide("planner#1", "cache", "deprecate"),
        read("planner-b", ["planner#1"]),
        decide("planner-b#1", "cache", "keep"),
        ...built("cache"),
      ]);
      expect(judgement.verdict).toBe("clean");
      expect(judgement.modules).toEqual([
        expect.objectContaining({ module: "cache", fate: "kept", built: 1, outcome: "ok" }),
      ]);
    });

    describe("authority", () => {
      it("an agent's decision made after reading a person's does not overrule it: the person's rules", () => {
        const judgement = judgeRun([
          start(),
          plan(["cache"]),
          decide("planner#1", "cache", "keep", { authority: "user" }),
          read("planner-b", ["planner#1"]),
          decide("planner-b#1", "cache", "deprecate"),
          skipped("cache", "planner-b"),
        ]);
        // The person's decision stands, so skipping the work it keeps is dropped work.
        expect(judgement.modules).toEqual([
          expect.objectContaining({ module: "cache", fate: "kept", outcome: "dropped" }),
        ]);
        expect(judgement.verdict).toBe("collision");
        expect(judgement.openDisputes).toEqual([]);
      });

      it("building what the person kept is clean; a person who read both settles it", () => {
        const kept = judgeRun([
          start(),
          plan(["cache"]),
          decide("planner#1", "cache", "keep", { authority: "user" }),
          read("planner-b", ["planner#1"]),
          decide("planner-b#1", "cache", "deprecate"),
          ...built("cache"),
        ]);
        expect(kept.verdict).toBe("clean");
        const settled = judgeRun([
          start(),
          plan(["cache"]),
          decide("planner#1", "cache", "keep", { authority: "user" }),
          read("planner-b", ["planner#1"]),
          decide("planner-b#1", "cache", "deprecate", { authority: "user" }),
          skipped("cache", "planner-b"),
        ]);
        expect(settled.modules).toEqual([
          expect.objectContaining({ module: "cache", fate: "retired", outcome: "ok" }),
        ]);
      });

      it("two decisions of the highest class that disagree are still an open dispute", () => {
        const judgement = judgeRun([
          start(),
          plan(["cache"]),
          decide("planner#1", "cache", "keep", { authority: "user" }),
          decide("planner-b#1", "cache", "deprecate", { authority: "user" }),
          decide("coder#1", "cache", "keep"),
        ]);
        expect(judgement.verdict).toBe("unresolved");
        expect(judgement.openDisputes).toEqual([
          {
            target: "cache",
            contenders: [
              { agentId: "planner", value: "keep" },
              { agentId: "planner-b", value: "deprecate" },
            ],
          },
        ]);
      });
    });

    it("decisions made without seeing each other stay a dispute: the run is unresolved, never clean", () => {
      const judgement = judgeRun([
        start(),
        plan(["cache"]),
        decide("planner#1", "cache", "deprecate"),
        decide("planner-b#1", "cache", "keep"),
        skipped("cache"),
      ]);
      expect(judgement.verdict).toBe("unresolved");
      expect(judgement.openDisputes).toEqual([
        {
          target: "cache",
          contenders: [
            { agentId: "planner", value: "deprecate" },
            { agentId: "planner-b", value: "keep" },
          ],
        },
      ]);
      expect(judgement.wastedModules).toEqual([]);
    });

    it("a lead's ruling made with both sides read settles the dispute", () => {
      const judgement = judgeRun([
        start(),
        plan(["cache"]),
        decide("planner#1", "cache", "deprecate"),
        decide("planner-b#1", "cache", "keep"),
        read("planner", ["planner#1", "planner-b#1"]),
        decide("planner#2", "cache", "keep"),
        ...built("cache"),
      ]);
      expect(judgement.verdict).toBe("clean");
      expect(judgement.openDisputes).toEqual([]);
    });

    it("an author's own later decision overrules its earlier one", () => {
      const judgement = judgeRun([
        start(),
        plan(["cache"]),
        decide("planner#1", "cache", "deprecate"),
        decide("planner#2", "cache", "keep"),
        ...built("cache"),
      ]);
      expect(judgement.verdict).toBe("clean");
    });
  });

  describe("each module against the final state", () => {
    it("work on a retired module is wasted, and the first build on it a stale action when it started after the decision", () => {
      const judgement = judgeRun([
        start(),
        plan(["cache", "api"]),
        decide("planner#1", "cache", "deprecate"),
        ...built("cache"),
        ...built("api"),
      ]);
      expect(judgement.verdict).toBe("collision");
      expect(judgement.wastedModules).toEqual(["cache"]);
      expect(judgement.wasted).toEqual({ tokens: 1000, ms: 1000 });
      expect(judgement.staleActions).toEqual([
        expect.objectContaining({
          agentId: "coder",
          module: "cache",
          action: "build",
          fateAtTheTime: "retired",
        }),
      ]);
      expect(judgement.collisionCause).toBe("read-before-act");
    });

    it("a module built twice is wasted once (atomic claim)", () => {
      const judgement = judgeRun([
        start(),
        plan(["search"]),
        plan(["search"], "coder-2"),
        ...built("search"),
        ...built("search", "coder-2"),
      ]);
      expect(judgement.wastedModules).toEqual(["search"]);
      expect(judgement.wasted.tokens).toBe(1000);
      expect(judgement.collisionCause).toBe("atomic claim");
    });

    it("a skip on a decision later reversed is dropped work, not a conflict avoided", () => {
      const judgement = judgeRun([
        start(),
        plan(["cache"]),
        decide("planner#1", "cache", "deprecate"),
        skipped("cache"),
        decide("planner#2", "cache", "keep"),
      ]);
      expect(judgement.verdict).toBe("collision");
      expect(judgement.droppedModules).toEqual(["cache"]);
      expect(judgement.avoided).toEqual([]);
    });

    it("a skip made after the decision was already reversed is a stale action", () => {
      const judgement = judgeRun([
        start(),
        plan(["cache"]),
        decide("planner#1", "cache", "deprecate"),
        decide("planner#2", "cache", "keep"),
        skipped("cache"),
      ]);
      expect(judgement.staleActions).toEqual([
        expect.objectContaining({ module: "cache", action: "skip", fateAtTheTime: "kept" }),
      ]);
    });

    it("a skip because another agent holds the module is fine when that agent built it", () => {
      const judgement = judgeRun([
        start(),
        plan(["search"]),
        plan(["search"], "coder-2"),
        skipped("search", "coder-2"),
        ...built("search", "coder-2"),
      ]);
      expect(judgement.verdict).toBe("clean");
      expect(judgement.avoided).toEqual([{ module: "search", mechanism: "read-before-act" }]);
      expect(judgement.staleActions).toEqual([]);
    });

    it("a decision on a module reaches its dependents: work on them is wasted too", () => {
      const judgement = judgeRun([
        start("broadcast", { "cache-client": ["cache"] }),
        plan(["cache-client"]),
        decide("planner#1", "cache", "deprecate"),
        ...built("cache-client"),
      ]);
      expect(judgement.wastedModules).toEqual(["cache-client"]);
      expect(judgement.modules[0]).toMatchObject({ module: "cache-client", fate: "retired" });
    });

    it("a replacement moves the planned work: the new module unbuilt is dropped", () => {
      const judgement = judgeRun([
        start(),
        plan(["cache"]),
        decide("planner#1", "cache", "replace", { replacement: "redis-cache" }),
        skipped("cache"),
      ]);
      expect(judgement.droppedModules).toEqual(["redis-cache"]);
      const done = judgeRun([
        start(),
        plan(["cache"]),
        decide("planner#1", "cache", "replace", { replacement: "redis-cache" }),
        skipped("cache"),
        ...built("redis-cache"),
      ]);
      expect(done.verdict).toBe("clean");
    });

    it("planned work never reached is dropped", () => {
      expect(judgeRun([start(), plan(["api"])]).droppedModules).toEqual(["api"]);
    });
  });

  describe("mode independence", () => {
    it.each(scenarios)(
      "%s: the same events judged under every mode label give the same judgement",
      async (name) => {
        const { events } = await runToEnd(await loadScenario(name), "broadcast", { seed: 7 });
        const judgements = runModes.map((mode) =>
          judgeRun(
            events.map((each) =>
              each.type === "run-start"
                ? { ...each, mode }
                : each.type === "run-end"
                  ? { ...each, summary: { ...each.summary, mode } }
                  : each,
            ),
          ),
        );
        for (const judgement of judgements) expect(judgement).toEqual(judgements[0]);
      },
    );

    it.each(runModes)(
      "%s: a Reviewer who joins after the work is done changes no verdict",
      async (mode) => {
        const scenario = await loadScenario("late-decision");
        const late = {
          ...scenario,
          agents: scenario.agents.map((agent) =>
            agent.role === "reviewer" ? { ...agent, startAtMs: 120_000 } : agent,
          ),
        };
        const onTime = await runToEnd(scenario, mode, { seed: 3 });
        const afterwards = await runToEnd(late, mode, { seed: 3 });
        const { modules, ...verdict } = afterwards.summary.referee ?? { modules: [] };
        const { modules: onTimeModules, ...onTimeVerdict } = onTime.summary.referee ?? {
          modules: [],
        };
        expect(verdict).toEqual(onTimeVerdict);
        expect(modules).toEqual(onTimeModules);
        expect(afterwards.summary.collision).toBe(onTime.summary.collision);
        expect(afterwards.summary.wastedModules).toEqual(onTime.summary.wastedModules);
      },
    );
  });
});
