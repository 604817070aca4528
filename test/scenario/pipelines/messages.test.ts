import { describe, expect, it } from "vitest";
import { activeDecisions, disagreementsIn } from "../../../src/scenario/pipelines/messages.js";

describe("activeDecisions", () => {
  const decision = (id: string, by: string, supersedes: string[] = []) => ({
    id,
    target: "auth",
    value: id,
    by,
    content: id,
    at: 0,
    supersedes,
  });

  it("drops the decisions a later one overrules, and repeats of one decision", () => {
    const first = decision("a#1", "a");
    const active = activeDecisions([
      first,
      decision("b#1", "b", ["a#1"]),
      decision("c#1", "c"),
      first,
    ]);
    expect(active.map((each) => each.value)).toEqual(["b#1", "c#1"]);
    expect(active[0]).toEqual({
      id: "b#1",
      target: "auth",
      value: "b#1",
      by: "b",
      content: "b#1",
      at: 0,
    });
  });
});

describe("disagreementsIn", () => {
  it("reports a target several agents decided differently, with each agent's latest value", () => {
    const disputes = disagreementsIn([
      { target: "auth", value: "deprecate", by: "planner-1", content: "" },
      { target: "auth", value: "keep", by: "planner-2", content: "" },
      { target: "auth", value: "keep", by: "planner-1", content: "" },
      { target: "auth", value: "rewrite", by: "planner-3", content: "" },
      { target: "billing", value: "keep", by: "planner-1", content: "" },
      { target: "billing", value: "keep", by: "planner-2", content: "" },
    ]);
    expect(disputes).toEqual([
      {
        target: "auth",
        contenders: [
          { agentId: "planner-1", value: "keep" },
          { agentId: "planner-2", value: "keep" },
          { agentId: "planner-3", value: "rewrite" },
        ],
      },
    ]);
  });
});
