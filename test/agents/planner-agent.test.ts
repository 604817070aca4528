import { describe, expect, it } from "vitest";
import { chooseEscalationWinner } from "../../src/agents/planner-agent.js";

const order = ["planner", "coder-1", "coder-2"];

/** Who wins one escalation among `contenders`, with the scenario's agents in `order`. */
const winnerAmong = (contenders: Parameters<typeof chooseEscalationWinner>[0]["contenders"]) =>
  chooseEscalationWinner({ escalationId: "e", key: "k", contenders }, order);

describe("chooseEscalationWinner", () => {
  it("gives a module claimed concurrently to the earliest claim", () => {
    const winner = chooseEscalationWinner(
      {
        escalationId: "e1",
        key: "search-index",
        contenders: [
          { agentId: "coder-1", value: "claimed-by:coder-1", at: 3100 },
          { agentId: "coder-2", value: "claimed-by:coder-2", at: 3050 },
        ],
      },
      order,
    );
    expect(winner).toBe("claimed-by:coder-2");
  });

  it("breaks a tie by the scenario's agent order", () => {
    const contenders = [
      { agentId: "coder-2", value: "claimed-by:coder-2", at: 3000 },
      { agentId: "coder-1", value: "claimed-by:coder-1", at: 3000 },
    ];
    expect(winnerAmong(contenders)).toBe("claimed-by:coder-1");
  });

  it("lets a deprecation beat a concurrent claim", () => {
    const contenders = [
      { agentId: "coder-1", value: "claimed-by:coder-1", at: 1 },
      { agentId: "planner", value: "deprecated-by:planner", at: 2 },
    ];
    expect(winnerAmong(contenders)).toBe("deprecated-by:planner");
  });

  it("leaves planners who disagree in dispute: nobody silently wins", () => {
    const contenders = [
      { agentId: "planner-a", value: "deprecated-by:planner-a", at: 1 },
      { agentId: "planner-b", value: "kept-by:planner-b", at: 2 },
    ];
    expect(winnerAmong(contenders)).toBeUndefined();
  });
});
