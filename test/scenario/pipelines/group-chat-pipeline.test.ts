import { describe, expect, it } from "vitest";
import { loadScenario } from "../../../src/scenario/load-scenario.js";
import {
  claimCoordinatorId,
  createGroupChatCoordination,
} from "../../../src/scenario/pipelines/group-chat-pipeline.js";
import { mechanisms } from "../../../src/scenario/scenario-events.js";
import { built, busFloor, decision } from "../support/coordination-steps.js";
import { runToEnd } from "../support/run-scenario.js";

function setup(dependsOn = new Map<string, string[]>()) {
  const { bus, events, emit, now, at } = busFloor();
  const coordination = createGroupChatCoordination({ bus, emit, now, dependsOn });
  return { bus, events, coordination, at };
}

describe("createGroupChatCoordination", () => {
  it("replays the transcript to a joiner (history for a late joiner)", async () => {
    const { coordination } = setup();
    coordination.join("planner");
    coordination.join("coder");
    await coordination.publishDecision("planner", decision("cookie", "deprecate", "Drop cookie"));
    coordination.join("coder-2");
    const known = await coordination.read("coder-2", "Build module cookie");
    expect(known.decisions.map((decision) => decision.target)).toEqual(["cookie"]);
  });

  it("interrupts work in flight when a message retires its module or one it depends on (mid-build invalidation)", async () => {
    const { coordination, events } = setup(new Map([["cache-client", ["cache"]]]));
    for (const agent of ["planner", "coder"]) coordination.join(agent);
    const notices: string[] = [];
    const stop = coordination.watchModule("coder", "cache-client", (notice) =>
      notices.push(notice.reason),
    );
    await coordination.publishDecision("planner", decision("search", "deprecate", "Drop search"));
    await coordination.publishDecision("planner", decision("cache", "keep", "Keep cache"));
    expect(notices).toEqual([]);
    await coordination.publishDecision("planner", decision("cache", "deprecate", "Drop cache"));
    expect(notices).toEqual(["deprecated by planner: Drop cache"]);
    // What the listener handed over is a read: the referee and the token count see it.
    expect(events.at(-1)).toMatchObject({
      type: "context-read",
      agentId: "coder",
      decisionIds: ["planner#3"],
    });
    stop();
  });

  it("grants the first claim on a module through the coordinator and refuses the next (atomic claim)", async () => {
    const { coordination, bus } = setup();
    for (const agent of ["coder-1", "coder-2"]) coordination.join(agent);
    expect(await coordination.claim("coder-1", "search")).toEqual({ granted: true });
    expect(await coordination.claim("coder-2", "search")).toEqual({
      granted: false,
      reason: "already claimed by coder-1",
      causedBy: "coder-1",
    });
    expect(bus.inbox(claimCoordinatorId).map((message) => message.from)).toEqual([
      "coder-1",
      "coder-2",
    ]);
  });

  it("reads only what bears on the task, and flags contradicting decisions (bounded context, dispute surfaced)", async () => {
    const { coordination } = setup();
    for (const agent of ["planner-a", "planner-b", "coder"]) coordination.join(agent);
    await coordination.publishDecision("planner-a", decision("cache", "deprecate", "Drop cache"));
    await coordination.publishDecision("planner-b", decision("cache", "keep", "Keep cache"));
    await coordination.reportResult("planner-a", built("planner-a", "cache", { tokens: 1, ms: 1 }));
    await coordination.publishDecision("planner-a", decision("search", "deprecate", "Drop search"));
    const known = await coordination.read("coder", "Build module cache");
    expect(known.decisions.map((decision) => decision.content)).toEqual([
      "Drop cache",
      "Keep cache",
    ]);
    expect(known.disputes).toEqual([
      {
        target: "cache",
        contenders: [
          { agentId: "planner-a", value: "deprecate" },
          { agentId: "planner-b", value: "keep" },
        ],
      },
    ]);
    expect(known.tokens).toBe(Math.ceil("planner-a: Drop cache\nplanner-b: Keep cache".length / 4));
  });

  describe("options.ablation", () => {
    // Each case group-chat avoids with one mechanism: switched off alone, the collision comes
    // back with that mechanism as its cause; every other mechanism off leaves it avoided.
    it.each([
      ["auth-jwt", "read-before-act"],
      ["late-decision", "mid-build invalidation"],
      ["two-coders", "atomic claim"],
      ["late-joiner", "history for a late joiner"],
    ] as const)("%s collides without %s, and only then", async (name, mechanism) => {
      const scenario = await loadScenario(name);
      const whole = await runToEnd(scenario, "group-chat");
      const without = await runToEnd(scenario, "group-chat", { ablation: { off: [mechanism] } });
      expect(whole.summary.collision).toBe(false);
      expect(whole.summary.avoidedBy[mechanism]).toBeGreaterThan(0);
      expect(without.summary.collision).toBe(true);
      expect(without.summary.collisionCause).toBe(mechanism);
      const others = mechanisms.filter((other) => other !== mechanism);
      const onlyThis = await runToEnd(scenario, "group-chat", { ablation: { off: others } });
      expect(onlyThis.summary.collision).toBe(false);
    });

    it("many-agents: filtered reading keeps the largest read small; unfiltered, it is the whole conversation", async () => {
      const scenario = await loadScenario("many-agents");
      // Without topic routing, so that the inbox holds the whole conversation to filter.
      const filtered = await runToEnd(scenario, "group-chat", {
        ablation: { off: ["topic routing"] },
      });
      const unfiltered = await runToEnd(scenario, "group-chat", {
        ablation: { off: ["bounded context", "topic routing"] },
      });
      expect(filtered.summary.read.largest).toBeLessThan(unfiltered.summary.read.largest / 10);
      expect(filtered.summary.collision).toBe(false);
    });
  });
});
