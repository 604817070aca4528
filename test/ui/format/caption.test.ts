import { describe, expect, it } from "vitest";
import { formatCaption, scenarioFocus } from "../../../src/ui/format/caption.js";
import { statewaveAvoidedEvents } from "../../support/fixtures/run-events.js";

/** A planner as a scenario lists it, deciding one module's fate. */
function plannerDeciding(id: string, name: string, target: string, value: string) {
  return { id, name, role: "planner", decisions: [{ target, value }] };
}

/** A coder as a scenario lists it, with the modules it plans to build. */
function coderBuilding(id: string, name: string, modules: string[]) {
  return { id, name, role: "coder", modules };
}

const planner = plannerDeciding("planner", "Planner", "legacy-session-token", "deprecate");
const coder = coderBuilding("coder", "Coder", ["jwt-issuer", "legacy-session-token"]);

describe("scenarioFocus", () => {
  it("watches the module a planner retires while a coder plans to build it", () => {
    expect(scenarioFocus({ agents: [planner, coder] })).toEqual({
      kind: "decision",
      module: "legacy-session-token",
      decider: "the Planner",
      value: "deprecate",
    });
  });

  it("watches a module two planners decide differently", () => {
    const a = plannerDeciding("a", "Planner A", "cache", "deprecate");
    const b = plannerDeciding("b", "Planner B", "cache", "keep");
    const focus = scenarioFocus({ agents: [a, b, coder] });
    expect(focus && formatCaption(focus, [])).toBe(
      "Watch cache: Planner A deprecates it, Planner B keeps it: who wins?",
    );
  });

  it("watches a module two coders both plan to build", () => {
    const one = coderBuilding("coder-1", "Coder 1", ["search-index"]);
    const two = coderBuilding("coder-2", "Coder 2", ["search-index", "api"]);
    const focus = scenarioFocus({ agents: [one, two] });
    expect(focus && formatCaption(focus, [])).toBe(
      "Watch search-index: Coder 1 and Coder 2 both plan to build it",
    );
  });

  it("has nothing to say for a scenario without decisions or shared modules", () => {
    expect(scenarioFocus({ agents: [coder] })).toBeUndefined();
  });
});

describe("formatCaption", () => {
  it("says when the decision landed once a pipeline published it", () => {
    const focus = scenarioFocus({ agents: [planner, coder] });
    if (!focus) throw new Error("expected a focus");
    expect(formatCaption(focus, [])).toBe("Watch legacy-session-token: the Planner deprecates it");
    expect(formatCaption(focus, statewaveAvoidedEvents())).toMatch(
      /^Watch legacy-session-token: the Planner deprecated it at T\+\d+\.\ds$/,
    );
  });
});
