import { describe, expect, it } from "vitest";
import { type Scenario, scenarioSchema } from "../../src/scenario/scenario-schema.js";
import { runToEnd } from "./support/run-scenario.js";

/** A team of one Planner, one Coder and a Reviewer, with the given decisions and plan. */
function team(fields: {
  decisions: Array<{ target: string; value: "deprecate" | "keep"; content: string }>;
  modules: string[];
  coderStartsAt?: number;
  dependsOn?: Record<string, string[]>;
}): Scenario {
  return scenarioSchema.parse({
    name: "decisions-hold-up",
    title: "Decisions that hold up",
    task: "Retire what the Planner says; build the rest.",
    agents: [
      {
        id: "planner",
        role: "planner",
        name: "Planner",
        color: "cyan",
        slice: "Decide.",
        decisions: fields.decisions,
      },
      {
        id: "coder",
        role: "coder",
        name: "Coder",
        color: "magenta",
        slice: "Build.",
        modules: fields.modules,
        startAtMs: fields.coderStartsAt ?? 3000,
      },
      { id: "reviewer", role: "reviewer", name: "Reviewer", color: "yellow" },
    ],
    dependsOn: fields.dependsOn ?? {},
    timings: { thinkMs: 1000, moduleMs: 2000, reviewMs: 500 },
    costs: { tokensPerThink: 100, tokensPerModule: 1000, tokensPerReview: 100 },
  });
}

describe("decisions that hold up", () => {
  it("500 decisions on the subject: the one that applies is read, and the read says how many it left out", async () => {
    const decisions = Array.from({ length: 500 }, (_, index) => ({
      target: `module-${index + 1}`,
      value: "deprecate" as const,
      content: `Deprecate module-${index + 1}.`,
    }));
    // module-1 was decided first: the oldest of 500, far past the newest 100.
    const scenario = team({
      decisions,
      modules: ["module-1", "fresh-module"],
      coderStartsAt: 5000,
    });
    for (const mode of ["statewave", "group-chat"] as const) {
      const { summary, events } = await runToEnd(scenario, mode);
      expect(events).toContainEqual(
        expect.objectContaining({ type: "module-skip", agentId: "coder", module: "module-1" }),
      );
      expect(summary.referee?.verdict).toBe("clean");
      const read = events.find(
        (event) => event.type === "context-read" && event.task === "Build module module-1",
      );
      if (read?.type !== "context-read") throw new Error("no read before module-1");
      expect(read.decisionIds).toContain("planner#1");
      expect(read.decisionsLeftOut).toBeGreaterThanOrEqual(mode === "group-chat" ? 499 : 399);
    }
  }, 120_000);

  const planner = (id: string, decisions: unknown[], startAtMs = 0) => ({
    id,
    role: "planner",
    name: id === "planner" ? "Planner" : "Planner B",
    color: "cyan",
    slice: "Decide.",
    decisions,
    startAtMs,
  });
  const coder = (modules: string[], startAtMs: number) => ({
    id: "coder",
    role: "coder",
    name: "Coder",
    color: "magenta",
    slice: "Build.",
    modules,
    startAtMs,
  });
  const scenarioOf = (agents: unknown[], dependsOn: Record<string, string[]> = {}) =>
    scenarioSchema.parse({
      name: "decisions-hold-up",
      title: "Decisions that hold up",
      task: "Retire what the Planners say; build the rest.",
      agents: [...agents, { id: "reviewer", role: "reviewer", name: "Reviewer", color: "yellow" }],
      dependsOn,
      timings: { thinkMs: 1000, moduleMs: 2000, reviewMs: 500 },
      costs: { tokensPerThink: 100, tokensPerModule: 1000, tokensPerReview: 100 },
    });
  const skipsOf = (events: readonly { type: string }[], module: string) =>
    events.filter(
      (event) => event.type === "module-skip" && (event as { module?: string }).module === module,
    ).length;
  const buildsOf = (events: readonly { type: string }[], module: string) =>
    events.filter(
      (event) => event.type === "module-end" && (event as { module?: string }).module === module,
    ).length;

  it.each(["statewave", "group-chat"] as const)(
    "%s: a decision on a module reaches the work on its dependents",
    async (mode) => {
      const scenario = scenarioOf(
        [
          planner("planner", [
            { target: "cache", value: "deprecate", content: "Deprecate cache." },
          ]),
          coder(["cache-client", "api"], 3000),
        ],
        { "cache-client": ["cache"] },
      );
      const { summary, events } = await runToEnd(scenario, mode);
      expect(skipsOf(events, "cache-client")).toBe(1);
      expect(buildsOf(events, "cache-client")).toBe(0);
      expect(summary.referee?.verdict).toBe("clean");
      // Without the dependency the referee counts the same work as wasted.
      const broadcast = await runToEnd(scenario, "naive");
      expect(broadcast.summary.referee?.wastedModules).toEqual(["cache-client"]);
    },
  );

  it.each(["statewave", "group-chat"] as const)(
    "%s: work skipped on a decision that is later reversed is picked back up and built",
    async (mode) => {
      const scenario = scenarioOf([
        planner("planner", [{ target: "cache", value: "deprecate", content: "Deprecate cache." }]),
        // Planner B joins later, reads the deprecation, and reverses it.
        planner(
          "planner-b",
          [{ target: "cache", value: "keep", content: "Keep cache: reports need it." }],
          2500,
        ),
        coder(["cache", "api", "billing"], 1500),
      ]);
      const { summary, events } = await runToEnd(scenario, mode);
      expect(skipsOf(events, "cache")).toBe(1);
      expect(buildsOf(events, "cache")).toBe(1);
      expect(summary.referee?.verdict).toBe("clean");
      expect(summary.referee?.droppedModules).toEqual([]);
    },
  );

  it.each(["statewave", "group-chat"] as const)(
    "%s: a replacement (value: replace, by: X) moves the planned work to X",
    async (mode) => {
      const scenario = scenarioOf([
        planner("planner", [
          {
            target: "cache",
            value: "replace",
            by: "redis-cache",
            content: "Replace cache with redis-cache.",
          },
        ]),
        coder(["cache", "api"], 3000),
      ]);
      const { summary, events } = await runToEnd(scenario, mode);
      expect(buildsOf(events, "cache")).toBe(0);
      expect(buildsOf(events, "redis-cache")).toBe(1);
      expect(summary.referee?.verdict).toBe("clean");
      // Broadcast reads the replacement too; naive never hears of it: cache built in vain, redis-cache dropped.
      const naive = await runToEnd(scenario, "naive");
      expect(naive.summary.referee).toMatchObject({
        wastedModules: ["cache"],
        droppedModules: ["redis-cache"],
      });
    },
  );

  it.each(["broadcast", "group-chat", "statewave"] as const)(
    "%s: a Planner's later decision on a module overrules its own earlier one",
    async (mode) => {
      const scenario = scenarioOf([
        planner("planner", [
          { target: "cache", value: "deprecate", content: "Deprecate cache." },
          { target: "cache", value: "keep", content: "Keep cache after all." },
        ]),
        coder(["api", "cache"], 0),
      ]);
      const { summary, events } = await runToEnd(scenario, mode);
      expect(buildsOf(events, "cache")).toBe(1);
      expect(summary.referee).toMatchObject({ verdict: "clean", droppedModules: [] });
    },
  );
});
