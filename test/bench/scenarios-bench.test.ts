import { describe, expect, it } from "vitest";
import { emptyRow, type ScenarioBenchRow, verdictsOf } from "../../src/bench/scenarios-bench.js";
import { loadScenario } from "../../src/scenario/load-scenario.js";
import { withTeamSize } from "../../src/scenario/team-size.js";

function row(
  mode: ScenarioBenchRow["mode"],
  fields: Partial<ScenarioBenchRow> = {},
): ScenarioBenchRow {
  return {
    ...emptyRow("s", mode),
    runs: 2,
    verdicts: { clean: 2, collision: 0, unresolved: 0 },
    readMean: 10,
    readLargest: 10,
    avoidedBy: { "read-before-act": 2 },
    ...fields,
  };
}

describe("verdictsOf", () => {
  it("compares shared context with group-chat and broadcast; equal outcomes are a tie, whatever it read", () => {
    const verdicts = verdictsOf([
      row("group-chat", { readMean: 1, deliveredMean: 900 }),
      row("broadcast", { collisions: 2, collisionCauses: { "mid-build invalidation": 2 } }),
      row("statewave", { readMean: 500, deliveredMean: 500 }),
    ]);
    expect(verdicts).toEqual([
      {
        scenario: "s",
        against: "group-chat",
        outcome: "tie",
        mechanisms: ["read-before-act"],
        read: [500, 1],
        delivered: [500, 900],
      },
      {
        scenario: "s",
        against: "broadcast",
        outcome: "win",
        mechanisms: ["mid-build invalidation"],
        read: [500, 10],
        delivered: [500, 0],
      },
    ]);
  });

  it("never calls a run with a dispute still open a win", () => {
    const verdicts = verdictsOf([
      row("group-chat", { collisions: 2 }),
      row("statewave", { verdicts: { clean: 0, collision: 0, unresolved: 2 } }),
    ]);
    expect(verdicts[0]?.outcome).toBe("unresolved");
  });
});

describe("withTeamSize", () => {
  it("gives the scenario N coders, copies building copies of the work, planners and reviewers kept", async () => {
    const scenario = await loadScenario("two-coders");
    const big = withTeamSize(scenario, 5);
    const coders = big.agents.filter((agent) => agent.role === "coder");
    expect(coders.map((agent) => agent.id)).toEqual([
      "coder-1",
      "coder-2",
      "coder-3",
      "coder-4",
      "coder-5",
    ]);
    expect(coders[2]?.modules?.every((module) => module.endsWith("-t1"))).toBe(true);
    expect(big.agents.filter((agent) => agent.role !== "coder")).toHaveLength(
      scenario.agents.filter((agent) => agent.role !== "coder").length,
    );
    expect(big.expected).toBeUndefined();
    expect(() => withTeamSize(scenario, 0)).toThrow(RangeError);
  });
});
