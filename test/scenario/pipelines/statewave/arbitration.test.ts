import { describe, expect, it } from "vitest";
import type { ArbitrationRequest } from "../../../../src/coordination/coordination.js";
import type { Escalation } from "../../../../src/crdt/escalation.js";
import type { SharedState } from "../../../../src/crdt/shared-state.js";
import { arbitrateEscalations } from "../../../../src/scenario/pipelines/statewave/arbitration.js";
import { sleepRecordingClock } from "../../../support/sleep-recording-clock.js";

function escalation(id: string, resolution?: Escalation["resolution"]): Escalation {
  const raised: Escalation = {
    id,
    subjectId: "repo",
    namespace: "modules",
    key: id,
    reason: "concurrent-register",
    contenders: [
      { agentId: "coder-1", value: "claimed-by:coder-1", at: 1 },
      { agentId: "coder-2", value: { owner: "coder-2" }, at: 2 },
    ],
    raisedAt: 2,
  };
  return resolution === undefined ? raised : { ...raised, resolution };
}

/** One look by the lead (`until` has already settled): what it chose and resolved. */
async function arbitrate(
  escalations: Escalation[],
  choose: (request: ArbitrationRequest) => string | undefined,
  resolve: (id: string, winner: string) => Promise<void> = async () => {},
) {
  const requests: ArbitrationRequest[] = [];
  const resolved: Array<[string, string, unknown]> = [];
  const state = {
    sync: async () => {},
    escalations: () => escalations,
    resolve: async (id: string, winner: string, options: unknown) => {
      await resolve(id, winner);
      resolved.push([id, winner, options]);
    },
  } as unknown as SharedState;
  const { clock, sleeps } = sleepRecordingClock();
  const announced: Array<[string, string]> = [];
  await arbitrateEscalations({
    agentId: "lead",
    state,
    clock,
    periodMs: 250,
    choose: (request) => {
      requests.push(request);
      return choose(request);
    },
    until: Promise.resolve(),
    onResolved: (each, winner) => announced.push([each.id, winner]),
  });
  return { requests, resolved, announced, sleeps };
}

describe("arbitrateEscalations", () => {
  it("settles each open escalation its rule can settle, and only open ones", async () => {
    const settled = escalation("settled", { value: "x", by: "lead", at: 1 });
    const { requests, resolved, announced, sleeps } = await arbitrate(
      [settled, escalation("open"), escalation("undecided")],
      (request) => (request.escalationId === "open" ? "claimed-by:coder-1" : undefined),
    );
    expect(requests).toEqual([
      {
        escalationId: "open",
        key: "open",
        contenders: [
          { agentId: "coder-1", value: "claimed-by:coder-1", at: 1 },
          { agentId: "coder-2", value: '{"owner":"coder-2"}', at: 2 },
        ],
      },
      expect.objectContaining({ escalationId: "undecided" }),
    ]);
    expect(resolved).toEqual([["open", "claimed-by:coder-1", { by: "lead" }]]);
    expect(announced).toEqual([["open", "claimed-by:coder-1"]]);
    expect(sleeps).toEqual([250]);
  });

  it("keeps its duty after a failed settle, and rethrows the failure at the end", async () => {
    const failure = new Error("store down");
    await expect(
      arbitrate(
        [escalation("open")],
        () => "claimed-by:coder-1",
        async () => {
          throw failure;
        },
      ),
    ).rejects.toBe(failure);
  });
});
