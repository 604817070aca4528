import { describe, expect, it } from "vitest";
import type { UnstampedEvent } from "../../../../src/agents/agent-runtime.js";
import type { Memory } from "../../../../src/context/context-store.js";
import type { SharedContext } from "../../../../src/context/shared-context.js";
import type { InvalidationNotice } from "../../../../src/coordination/coordination.js";
import { DecisionIndex } from "../../../../src/scenario/pipelines/statewave/decision-index.js";
import { MidBuildInvalidation } from "../../../../src/scenario/pipelines/statewave/invalidation.js";
import { contextRead, memory } from "./fakes.js";

const index = new DecisionIndex();
index.add("deprecate-auth", {
  target: "auth",
  value: "deprecate",
  by: "planner",
  content: "Drop auth",
});
index.add("keep-auth", { target: "auth", value: "keep", by: "lead", content: "Keep auth" });
index.add("deprecate-billing", {
  target: "billing",
  value: "deprecate",
  by: "planner",
  content: "Drop billing",
});
index.add("keep-auth-again", { target: "auth", value: "keep", by: "planner", content: "Keep it" });
index.add("coder-on-auth", { target: "auth", value: "deprecate", by: "coder", content: "Mine" });

/** Each agent's next re-read answers `changed` (what it had not received before). */
function setup(changed: Record<string, Memory[]>) {
  const reads: Array<{ agentId: string; task: string; maxTokens: number }> = [];
  const events: UnstampedEvent[] = [];
  // Every re-read is on the record (a delivery the cost rule charges): kept apart here.
  const rereads: UnstampedEvent[] = [];
  const invalidation = new MidBuildInvalidation({
    contextOf: (agentId) =>
      ({
        beforeActing: async (reader: string, task: string, options: { maxTokens: number }) => {
          reads.push({ agentId: reader, task, maxTokens: options.maxTokens });
          return contextRead({ changedSinceLastRead: changed[agentId] ?? [] });
        },
      }) as unknown as SharedContext,
    index,
    budgetTokens: 640,
    exclusive: (work) => work(),
    emit: (event) => (event.type === "context-read" ? rereads : events).push(event),
  });
  return { invalidation, reads, events, rereads };
}

describe("MidBuildInvalidation", () => {
  it("tells work in flight at once when someone else deprecates its module", async () => {
    const { invalidation, reads, events, rereads } = setup({
      coder: [memory("m", ["deprecate-auth"])],
    });
    const notices: InvalidationNotice[] = [];
    invalidation.watch("coder", "auth", (notice) => notices.push(notice));
    await invalidation.afterWrite("planner");
    expect(notices).toEqual([{ reason: "deprecated by planner: Drop auth", by: "planner" }]);
    expect(reads).toEqual([{ agentId: "coder", task: "Build module auth", maxTokens: 640 }]);
    expect(events).toEqual([]);
    expect(rereads).toEqual([
      expect.objectContaining({
        type: "context-read",
        agentId: "coder",
        task: "Build module auth",
        source: "re-read",
      }),
    ]);
  });

  it("reads a change that does not contradict the work, says so, and carries on", async () => {
    const { invalidation, events } = setup({ coder: [memory("m", ["keep-auth"])] });
    const notices: InvalidationNotice[] = [];
    invalidation.watch("coder", "auth", (notice) => notices.push(notice));
    await invalidation.afterWrite("lead");
    expect(notices).toEqual([]);
    expect(events).toEqual([
      {
        type: "agent-log",
        agentId: "coder",
        text: "Re-read auth: lead decided keep; nothing contradicts the work, carrying on.",
      },
    ]);
  });

  it("names every non-contradicting change in one line", async () => {
    const { invalidation, events } = setup({
      coder: [memory("a", ["keep-auth"]), memory("b", ["keep-auth-again"])],
    });
    invalidation.watch("coder", "auth", () => {});
    await invalidation.afterWrite("lead");
    expect(events).toEqual([
      expect.objectContaining({
        text: "Re-read auth: lead decided keep, planner decided keep; nothing contradicts the work, carrying on.",
      }),
    ]);
  });

  it.each([
    ["nothing changed", []],
    ["a decision on another module", [memory("m", ["deprecate-billing"])]],
    ["the agent's own decision", [memory("m", ["coder-on-auth"])]],
  ])("ignores %s, silently", async (_, changed) => {
    const { invalidation, events } = setup({ coder: changed });
    const notices: InvalidationNotice[] = [];
    invalidation.watch("coder", "auth", (notice) => notices.push(notice));
    await invalidation.afterWrite("planner");
    expect(notices).toEqual([]);
    expect(events).toEqual([]);
  });

  it("does not re-read for the writer itself", async () => {
    const { invalidation, reads } = setup({});
    invalidation.watch("planner", "auth", () => {});
    await invalidation.afterWrite("planner");
    expect(reads).toEqual([]);
  });

  it("stops watching when the returned function is called, even in the middle of a delivery", async () => {
    const deprecated = [memory("m", ["deprecate-auth"])];
    const { invalidation, reads } = setup({ "coder-1": deprecated, "coder-2": deprecated });
    const notified: string[] = [];
    let stopSecond = () => {};
    // coder-1 is told first, and its build ending stops coder-2's watch before coder-2's turn.
    invalidation.watch("coder-1", "auth", () => {
      notified.push("coder-1");
      stopSecond();
    });
    stopSecond = invalidation.watch("coder-2", "auth", () => notified.push("coder-2"));
    const stopThird = invalidation.watch("coder-3", "auth", () => notified.push("coder-3"));
    stopThird();
    await invalidation.afterWrite("planner");
    expect(notified).toEqual(["coder-1"]);
    expect(reads.map((each) => each.agentId)).toEqual(["coder-1"]);
  });
});
