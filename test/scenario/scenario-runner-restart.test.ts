import { describe, expect, it } from "vitest";
import { loadScenario } from "../../src/scenario/load-scenario.js";
import type { ScenarioEvent } from "../../src/scenario/scenario-events.js";
import { scenarioSchema } from "../../src/scenario/scenario-schema.js";
import { runToEnd } from "./support/run-scenario.js";

const buildsOf = (events: readonly ScenarioEvent[], module: string) =>
  events.filter((event) => event.type === "module-end" && event.module === module).length;

describe("scenario steps: restart", () => {
  it.each(["statewave", "group-chat", "broadcast", "naive"] as const)(
    "%s: the crash is announced, the build in flight is lost, caused by no decision",
    async (mode) => {
      const scenario = await loadScenario("crash-restart");
      const { events } = await runToEnd(scenario, mode);
      const restart = events.find((event) => event.type === "agent-restart");
      expect(restart).toMatchObject({ agentId: "coder", at: 15000 });
      const lost = events.find(
        (event) => event.type === "module-cancel" && event.at === restart?.at,
      );
      expect(lost).toMatchObject({ agentId: "coder", causedBy: null });
      expect(lost?.type === "module-cancel" && lost.msSpent).toBeGreaterThan(0);
      // It starts again from the top: a second agent-start, a second plan.
      expect(
        events.filter((event) => event.type === "agent-start" && event.agentId === "coder"),
      ).toHaveLength(2);
    },
  );

  it.each(["statewave", "group-chat"] as const)(
    "%s: the restarted Coder reads back what it built (no second build) and the deprecation",
    async (mode) => {
      const { events, summary } = await runToEnd(await loadScenario("crash-restart"), mode);
      expect(buildsOf(events, "job-api")).toBe(1);
      expect(buildsOf(events, "legacy-queue")).toBe(0);
      expect(buildsOf(events, "job-worker")).toBe(1);
      expect(summary.referee?.verdict).toBe("clean");
    },
  );

  it("broadcast: with no history to read, the restarted Coder builds job-api again", async () => {
    const { events, summary } = await runToEnd(await loadScenario("crash-restart"), "broadcast");
    expect(buildsOf(events, "job-api")).toBe(2);
    expect(summary.referee?.wastedModules).toEqual(["job-api", "legacy-queue"]);
  });

  it("refuses a restart step naming an agent that is not a coder, or before it starts", () => {
    const base = {
      name: "x",
      title: "x",
      task: "x",
      agents: [
        { id: "planner", role: "planner", name: "P", color: "cyan" },
        { id: "coder", role: "coder", name: "C", color: "magenta", startAtMs: 5000 },
        { id: "reviewer", role: "reviewer", name: "R", color: "yellow" },
      ],
      timings: { thinkMs: 1, moduleMs: 1, reviewMs: 1 },
      costs: { tokensPerThink: 1, tokensPerModule: 1, tokensPerReview: 1 },
    };
    const planner = scenarioSchema.safeParse({
      ...base,
      steps: [{ atMs: 6000, restart: "planner" }],
    });
    expect(planner.error?.issues[0]).toMatchObject({ path: ["steps", 0, "restart"] });
    const early = scenarioSchema.safeParse({ ...base, steps: [{ atMs: 4000, restart: "coder" }] });
    expect(early.error?.issues[0]).toMatchObject({ path: ["steps", 0, "atMs"] });
  });
});
