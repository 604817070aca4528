import { describe, expect, it } from "vitest";
import { formatHistorySweep, growthChart } from "../../src/bench/format-scenario-bench.js";
import { emptyRow } from "../../src/bench/scenarios-bench.js";
import { historyScenario } from "../../src/scenario/history-size.js";

describe("growth sweeps", () => {
  it("historyScenario: the decision that matters first, then N-1 more, before the Coder joins", () => {
    const scenario = historyScenario(25);
    const planner = scenario.agents.find((agent) => agent.role === "planner");
    expect(planner?.decisions).toHaveLength(25);
    expect(planner?.decisions?.[0]).toMatchObject({ target: "ledger", value: "deprecate" });
    expect(scenario.agents.find((agent) => agent.role === "coder")?.startAtMs).toBe(3000);
    expect(() => historyScenario(0)).toThrow(RangeError);
  });

  it("charts delivered tokens as bars scaled to the largest, within 80 columns", () => {
    const rows = [
      { ...emptyRow("h", "group-chat"), deliveredMean: 1000, history: 8 },
      { ...emptyRow("h", "statewave"), deliveredMean: 250, history: 8 },
      { ...emptyRow("h", "naive"), deliveredMean: 0, history: 8 },
    ];
    const lines = growthChart(rows, (row) => row.history ?? 0);
    expect(lines[0]).toContain(`${"█".repeat(44)} 1,000`);
    expect(lines[1]).toContain(`${"█".repeat(11)} 250`);
    expect(lines[2]?.endsWith(" 0")).toBe(true);
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(80);
    expect(formatHistorySweep(rows, 5)).toContain("Tokens delivered a run (the one cost rule):");
  });
});
