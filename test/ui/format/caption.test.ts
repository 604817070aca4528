import { describe, expect, it } from "vitest";
import { formatCaption, scenarioFocus } from "../../../src/ui/format/caption.js";
import { statewaveAvoidedEvents } from "../../support/fixtures/run-events.js";

const planner = {
  id: "planner",
  name: "Planner",
  role: "planner",
  decisions: [{ target: "legacy-session-token", value: "deprecate" }],
};
const coder = {
  id: "coder",
  name: "Coder",
  role: "coder",
  modules: ["jwt-issuer", "legacy-session-token"],
};

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
    const a = {
      id: "a",
      name: "Planner A",
      role: "planner",
      decisions: [{ target: "cache", value: "deprecate" }],
    };
    const b = {
      id: "b",
      name: "Planner B",
      role: "planner",
      decisions: [{ target: "cache", value: "keep" }],
    };
    const focus = scenarioFocus({ agents: [a, b, coder] });
    expect(focus && formatCaption(focus, [])).toBe(
      "Watch cache: Planner A deprecates it, Planner B keeps it: who wins?",
    );
  });

  it("watches a module two coders both plan to build", () => {
    const one = { id: "coder-1", name: "Coder 1", role: "coder", modules: ["search-index"] };
    const two = { id: "coder-2", name: "Coder 2", role: "coder", modules: ["search-index", "api"] };
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
