import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { loadScenario } from "../../src/scenario/load-scenario.js";
import { runModes } from "../../src/scenario/scenario-events.js";
import { runToEnd } from "./support/run-scenario.js";

const files = ["reversal.yaml", "dependency.yaml", "rename.yaml", "hundreds.json", "no-lead.yaml"];
const pathOf = (file: string) => fileURLToPath(new URL(`./skeptic/${file}`, import.meta.url));

// Each file's outcome was written down before it was first run; the referee must agree.
describe.each(files)("the skeptic's scenario %s", (file) => {
  it.each(runModes)("%s: the referee reaches the outcome written down", async (mode) => {
    const scenario = await loadScenario(pathOf(file));
    const expected = scenario.expected?.[mode];
    expect(expected).toBeDefined();
    const { summary } = await runToEnd(scenario, mode);
    expect({
      verdict: summary.referee?.verdict,
      collision: summary.collision,
      escalations: summary.escalations,
      wastedModules: summary.referee?.wastedModules,
      droppedModules: summary.referee?.droppedModules,
    }).toEqual({
      verdict: expected?.verdict,
      collision: expected?.collision,
      escalations: expected?.escalations,
      wastedModules: expected?.wastedModules,
      droppedModules: expected?.droppedModules,
    });
  });
});
