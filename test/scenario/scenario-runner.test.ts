import { describe, expect, it } from "vitest";
import { listScenarios, loadScenario, scenarioFromTask } from "../../src/scenario/load-scenario.js";
import { fromRunEventEpisode } from "../../src/scenario/run-record.js";
import { runModes, type ScenarioEvent } from "../../src/scenario/scenario-events.js";
import { deferred } from "../support/deferred.js";
import { cancelledModules, runToEnd } from "./support/run-scenario.js";
import { createRunnerFixtures } from "./support/runner-fixtures.js";

const { memoryStore, startAuthJwt } = createRunnerFixtures();

const names = (await listScenarios()).map((scenario) => scenario.name);
const modes = runModes;
const seeds = [1, 7, 42];

describe("startRun", () => {
  describe.each(names)("scenario %s", (name) => {
    it.each(modes.flatMap((mode) => seeds.map((seed) => [mode, seed] as const)))(
      "%s mode, seed %i, reaches the expected outcome",
      async (mode, seed) => {
        const scenario = await loadScenario(name);
        const expected = scenario.expected?.[mode];
        expect(expected).toBeDefined();
        const { summary, events } = await runToEnd(scenario, mode, { seed, store: memoryStore() });
        expect({
          verdict: summary.referee?.verdict,
          collision: summary.collision,
          escalations: summary.escalations,
          wastedModules: summary.wastedModules,
          droppedModules: summary.referee?.droppedModules,
          cancelledModules: cancelledModules(events),
        }).toEqual({
          verdict: expected?.verdict ?? (expected?.collision ? "collision" : "clean"),
          collision: expected?.collision,
          escalations: expected?.escalations,
          wastedModules: expected?.wastedModules,
          droppedModules: expected?.droppedModules,
          cancelledModules: expected?.cancelledModules,
        });
        expect(summary.conflictsAvoided).toBeGreaterThanOrEqual(expected?.minConflictsAvoided ?? 0);
        // Each avoided conflict and each collision is attributed to the mechanism expected.
        expect(Object.keys(summary.avoidedBy).sort()).toEqual(
          [...(expected?.avoidedBy ?? [])].sort(),
        );
        expect(summary.collisionCause).toBe(expected?.collisionCause ?? null);
      },
    );
  });

  describe("result.events", () => {
    it("persists every event in the store under the run id, in order", async () => {
      const store = memoryStore();
      const { events, runId } = await runToEnd(await loadScenario("auth-jwt"), "naive", { store });
      expect(runId).toBe("nv-00000000");
      const timeline = await store.getTimeline(runId, { limit: 1000 });
      expect(timeline.episodes.map(fromRunEventEpisode)).toEqual(events);
      expect(events[0]?.type).toBe("run-start");
      expect(events.at(-1)?.type).toBe("run-end");
    });

    it("runs the agents concurrently: the Planner decides while the Coder works", async () => {
      const { events } = await runToEnd(await loadScenario("auth-jwt"), "naive", {
        store: memoryStore(),
      });
      const types = events.map(
        (event) => `${event.type}:${"agentId" in event ? event.agentId : ""}`,
      );
      const firstModuleStart = types.indexOf("module-start:coder");
      const decision = types.indexOf("decision-write:planner");
      const lastModuleEnd = types.lastIndexOf("module-end:coder");
      expect(decision).toBeGreaterThan(-1);
      // The decision lands between the Coder's first and last build: neither waited for the other.
      expect(events[decision]?.at).toBeLessThan(events[lastModuleEnd]?.at ?? 0);
      expect(events[firstModuleStart]?.at).toBeLessThan(events[lastModuleEnd]?.at ?? 0);
      expect(events.filter((event) => event.type === "agent-start")).toHaveLength(3);
    });

    it("is reproducible: the same seed gives the same events", async () => {
      const scenario = await loadScenario("late-decision");
      const first = await runToEnd(scenario, "naive", { seed: 3, store: memoryStore() });
      const second = await runToEnd(scenario, "naive", { seed: 3, store: memoryStore() });
      expect(second.events).toEqual(first.events);
      const other = await runToEnd(scenario, "naive", { seed: 4, store: memoryStore() });
      expect(other.events).not.toEqual(first.events);
    });

    it("replays past events to a late subscriber", async () => {
      const handle = await startAuthJwt({ mode: "naive" });
      await handle.done;
      const replayed: ScenarioEvent[] = [];
      handle.subscribe((event) => replayed.push(event));
      expect(replayed[0]?.type).toBe("run-start");
      expect(replayed.at(-1)?.type).toBe("run-end");
    });
  });

  describe("the Reviewer and disputes", () => {
    it("naive: reports the collision and the planners' disagreement still open", async () => {
      const { events } = await runToEnd(await loadScenario("disagreeing-planners"), "naive", {
        store: memoryStore(),
      });
      expect(events).toContainEqual(
        expect.objectContaining({ type: "collision", module: "legacy-cache" }),
      );
      expect(events).toContainEqual(
        expect.objectContaining({
          type: "agent-log",
          agentId: "reviewer",
          text: "Open dispute → legacy-cache: Planner A (deprecate) vs Planner B (keep); needs a decision",
          openDispute: {
            target: "legacy-cache",
            contenders: [
              { agentId: "planner-a", value: "deprecate" },
              { agentId: "planner-b", value: "keep" },
            ],
          },
        }),
      );
    });
  });

  describe("options.signal", () => {
    it("rejects done when the run is aborted", async () => {
      const controller = new AbortController();
      const started = deferred();
      const handle = await startAuthJwt({ mode: "naive", signal: controller.signal });
      handle.subscribe((event) => {
        if (event.type === "module-start") started.resolve();
      });
      await started.promise;
      controller.abort(new Error("stopped by the user"));
      await expect(handle.done).rejects.toThrow("stopped by the user");
    });
  });

  describe("a custom --task", () => {
    it("puts run --task's team on it: the existing module is kept working while the Planner decides", async () => {
      const task = "Build a payment service. Deprecate legacy Stripe v1 module.";
      const { summary, events } = await runToEnd(scenarioFromTask(task), "naive", {
        store: memoryStore(),
      });
      expect(events).toContainEqual(
        expect.objectContaining({
          type: "decision-write",
          agentId: "planner",
          target: "legacy-stripe-v1",
          value: "deprecate",
        }),
      );
      // A Coder for the new work, nothing added to its brief for the deprecation…
      expect(events).toContainEqual(
        expect.objectContaining({
          type: "agent-log",
          agentId: "coder-1",
          text: "Plan: payment-service",
        }),
      );
      // …and one porting the module the task names, which naive never tells about the decision.
      expect(summary.wastedModules).toEqual(["legacy-stripe-v1"]);
    });

    // The task contradicts itself (retire a module, then port it): a real conflict.
    const contradictory = "Retire legacy-cache. Build redis-cache and port legacy-cache to it.";

    it("collides in naive mode when the task's own work touches what it retires", async () => {
      const { summary } = await runToEnd(scenarioFromTask(contradictory), "naive", {
        store: memoryStore(),
      });
      expect(summary.collision).toBe(true);
      expect(summary.wastedModules).toEqual(["legacy-cache"]);
    });

    it("avoids that collision in statewave mode: the Planner's decision stops the Coder's work on it", async () => {
      const { summary, events } = await runToEnd(scenarioFromTask(contradictory), "statewave", {
        store: memoryStore(),
      });
      expect(summary.collision).toBe(false);
      // Porting the existing module starts at once while the Planner deliberates: the decision
      // stops it (before or during the build), and it is never finished.
      const stopped = events.filter(
        (event) =>
          (event.type === "module-skip" || event.type === "module-cancel") &&
          event.module === "legacy-cache",
      );
      expect(stopped.length).toBeGreaterThan(0);
      expect(
        stopped.every(
          (event) =>
            "causedBy" in event && event.causedBy === "planner" && event.agentId === "coder-2",
        ),
      ).toBe(true);
      expect(events).not.toContainEqual(
        expect.objectContaining({ type: "module-end", module: "legacy-cache" }),
      );
      expect(events).toContainEqual(
        expect.objectContaining({ type: "module-end", agentId: "coder-1", module: "redis-cache" }),
      );
    });

    it("says plainly that a task it cannot read has nothing to coordinate", async () => {
      const { summary, events } = await runToEnd(scenarioFromTask("Hello"), "naive", {
        store: memoryStore(),
      });
      const texts = events.flatMap((event) => (event.type === "agent-log" ? [event.text] : []));
      expect(summary.collision).toBe(false);
      expect(texts.some((text) => text.startsWith("No decision found in the task"))).toBe(true);
      expect(texts.some((text) => text.startsWith("No work found in the task"))).toBe(true);
      expect(texts).toContain("Nothing to review: no module was built and no decision was seen.");
      expect(texts).not.toContain("No conflicts: the work matches the decisions.");
    });
  });
});
