import { describe, expect, it } from "vitest";
import type { KnownDecision } from "../../../../src/agents/brain.js";
import { DecisionIndex } from "../../../../src/scenario/pipelines/statewave/decision-index.js";
import { memory } from "./fakes.js";

const deprecate: KnownDecision = {
  target: "auth",
  value: "deprecate",
  by: "planner",
  content: "d",
};
const keep: KnownDecision = { target: "auth", value: "keep", by: "planner", content: "k" };

describe("DecisionIndex", () => {
  it("turns a memory back into the decision of its newest source episode", () => {
    const index = new DecisionIndex();
    index.add("e1", deprecate);
    index.add("e2", keep);
    expect(index.decisionOf(memory("m", ["e1", "e2"]))).toBe(keep);
    expect(index.decisionOf(memory("m", ["e2", "e1"]))).toBe(deprecate);
  });

  it("skips source episodes that carried no decision", () => {
    const index = new DecisionIndex();
    index.add("e1", deprecate);
    expect(index.decisionOf(memory("m", ["e1", "note"]))).toBe(deprecate);
    expect(index.decisionOf(memory("m", ["note"]))).toBeUndefined();
  });

  it("keeps the memories' order and leaves out those that are no decision", () => {
    const index = new DecisionIndex();
    index.add("e1", deprecate);
    index.add("e2", keep);
    const memories = [memory("a", ["e2"]), memory("b", ["x"]), memory("c", ["e1"])];
    expect(index.decisionsIn(memories)).toEqual([keep, deprecate]);
  });
});
