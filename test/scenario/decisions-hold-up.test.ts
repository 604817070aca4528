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
});
