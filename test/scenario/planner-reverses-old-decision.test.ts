import { describe, expect, it } from "vitest";
import { scenarioSchema } from "../../src/scenario/scenario-schema.js";
import { runToEnd } from "./support/run-scenario.js";

/**
 * A Planner reverses an old decision (issue 36): the architect retires old-1 … old-130; a second
 * Planner, who joins after all of it, keeps old-2; a Coder joins last to port old-2 and old-7.
 *
 * Written down before the first run — the correct outcome:
 * - The final state: old-2 kept (the second Planner read the architect's retirement of it and
 *   reversed it: a decision overrules the earlier ones on its target its author had read), every
 *   other old-N retired.
 * - statewave: the second Planner's planning read sees the retirement of old-2 though 128 newer
 *   decisions follow it (the read is exact: every active decision, and the newest on every target
 *   its slice names), so its keep supersedes it. The Coder builds old-2 and skips old-7. Clean:
 *   no dispute, nothing wasted, nothing dropped.
 * - group-chat: the transcript replayed holds all 131 decisions: the same work, clean.
 * Before the exact reads, statewave's planning read held the newest 100 decisions only: the keep
 * overruled nothing, the two stood as a dispute and the run ended unresolved.
 */
const retired = 130;

function scenario() {
  return scenarioSchema.parse({
    name: "planner-reverses-old-decision",
    title: "A Planner reverses an old decision",
    task: "Retire the old modules; keep what billing still needs.",
    agents: [
      {
        id: "architect",
        role: "planner",
        name: "Architect",
        color: "cyan",
        slice: "Retire the old modules.",
        decisions: Array.from({ length: retired }, (_, index) => ({
          target: `old-${index + 1}`,
          value: "deprecate",
          content: `Deprecate old-${index + 1}.`,
        })),
      },
      {
        id: "platform",
        role: "planner",
        name: "Platform",
        color: "blue",
        slice: "Keep old-2: billing exports still read it.",
        startAtMs: 5000,
        decisions: [
          { target: "old-2", value: "keep", content: "Keep old-2: billing exports still read it." },
        ],
      },
      {
        id: "joiner",
        role: "coder",
        name: "Joiner",
        color: "magenta",
        slice: "Port old-2 and old-7.",
        startAtMs: 12_000,
        modules: ["old-2", "old-7"],
      },
      { id: "reviewer", role: "reviewer", name: "Reviewer", color: "yellow" },
    ],
    timings: { thinkMs: 1500, moduleMs: 3000, reviewMs: 1500, jitterMs: 300 },
    costs: { tokensPerThink: 300, tokensPerModule: 2000, tokensPerReview: 900 },
  });
}

const moduleEvents = (events: readonly { type: string }[], type: string, module: string) =>
  events.filter((event) => event.type === type && (event as { module?: string }).module === module)
    .length;

describe("a Planner reverses the 2nd of 130 decisions", () => {
  it.each([
    ["statewave", 1],
    ["statewave", 2],
    ["statewave", 3],
    ["statewave", 4],
    ["statewave", 5],
    ["group-chat", 1],
  ] as const)(
    "%s, seed %i: the keep overrules the retirement and the run ends clean",
    async (mode, seed) => {
      const { summary, events } = await runToEnd(scenario(), mode, { seed });
      expect(summary.referee).toMatchObject({
        verdict: "clean",
        wastedModules: [],
        droppedModules: [],
      });
      expect(moduleEvents(events, "module-end", "old-2")).toBe(1);
      expect(moduleEvents(events, "module-skip", "old-7")).toBe(1);
      expect(moduleEvents(events, "module-end", "old-7")).toBe(0);
    },
    120_000,
  );
});
