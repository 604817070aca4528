import { describe, expect, it } from "vitest";
import type { UnstampedEvent } from "../../../../src/agents/agent-runtime.js";
import { Disputed } from "../../../../src/crdt/disputed.js";
import type { Escalation } from "../../../../src/crdt/escalation.js";
import type { SharedState } from "../../../../src/crdt/shared-state.js";
import { claimModule } from "../../../../src/scenario/pipelines/statewave/atomic-claim.js";
import { sleepRecordingClock } from "../../../support/sleep-recording-clock.js";

const disputed = new Disputed("modules/auth#1", [
  { agentId: "coder-1", value: "claimed-by:coder-1", at: 1 },
  { agentId: "planner", value: "deprecated-by:planner", at: 2 },
]);
/** An escalation that holds more than claims: the lead's to settle. */
const escalation: Escalation = {
  id: "modules/auth#1",
  subjectId: "repo",
  namespace: "modules",
  key: "auth",
  reason: "concurrent-register",
  contenders: [...disputed.contenders],
  raisedAt: 2,
};
/** A claim race: two claims only, `first` written first. */
function claimRace(first: string, second: string): Escalation {
  return {
    ...escalation,
    contenders: [
      { agentId: first, value: `claimed-by:${first}`, at: 1 },
      { agentId: second, value: `claimed-by:${second}`, at: 2 },
    ],
  };
}

/**
 * The modules register as the claimer sees it: each `get` answers the next of `reads` (the last
 * one repeats): before the claim, right after it, then once per wait for the lead.
 */
async function claim(reads: unknown[], thinkMs = 40, open: Escalation = escalation) {
  const puts: unknown[] = [];
  const resolved: unknown[] = [];
  const events: UnstampedEvent[] = [];
  const announced: Escalation[] = [];
  let next = 0;
  const state = {
    get: (namespace: string, key: string) => {
      expect([namespace, key]).toEqual(["modules", "auth"]);
      const value = reads[Math.min(next, reads.length - 1)];
      next += 1;
      return value;
    },
    put: async (namespace: string, key: string, value: unknown) => {
      puts.push([namespace, key, value]);
    },
    sync: async () => {},
    escalations: () => [open],
    resolve: async (id: string, value: unknown, options: { by: string }) => {
      resolved.push([id, value, options.by]);
    },
  } as unknown as SharedState;
  const { clock, sleeps } = sleepRecordingClock();
  const outcome = await claimModule("coder-1", "auth", {
    state,
    clock,
    thinkMs,
    emit: (event) => events.push(event),
    announce: (each) => announced.push(each),
    agentOrder: ["planner", "coder-1", "coder-2"],
  });
  return { outcome, puts, sleeps, events, announced, resolved };
}

const claimEvent = { type: "module-claim", agentId: "coder-1", module: "auth" };

describe("claimModule", () => {
  it("takes a free module in the register, with no wait", async () => {
    const { outcome, puts, sleeps, events, announced } = await claim([
      undefined,
      "claimed-by:coder-1",
    ]);
    expect(outcome).toEqual({ granted: true });
    expect(puts).toEqual([["modules", "auth", "claimed-by:coder-1"]]);
    expect(sleeps).toEqual([]);
    expect(events).toEqual([claimEvent]);
    expect(announced).toEqual([]);
  });

  it("claims again a module it already holds", async () => {
    const { outcome } = await claim(["claimed-by:coder-1"]);
    expect(outcome).toEqual({ granted: true });
  });

  it("does not claim a module someone else holds, and names them", async () => {
    const { outcome, puts, events } = await claim(["claimed-by:coder-2"]);
    expect(outcome).toEqual({
      granted: false,
      reason: "already claimed by coder-2",
      causedBy: "coder-2",
    });
    expect(puts).toEqual([]);
    expect(events).toEqual([]);
  });

  describe("a claim race: two claims made without seeing each other", () => {
    it("is settled by the first claim in the store, at once, by its claimant", async () => {
      const race = claimRace("coder-1", "coder-2");
      const { outcome, sleeps, events, resolved } = await claim(
        [undefined, new Disputed("modules/auth#1", race.contenders)],
        40,
        race,
      );
      expect(outcome).toEqual({ granted: true });
      expect(sleeps).toEqual([]);
      expect(resolved).toEqual([["modules/auth#1", "claimed-by:coder-1", "coder-1"]]);
      expect(events).toEqual([
        claimEvent,
        {
          type: "escalation-resolve",
          escalationId: "modules/auth#1",
          by: "coder-1",
          value: "claimed-by:coder-1",
        },
      ]);
    });

    it("yields to an earlier claim without waiting for anyone", async () => {
      const race = claimRace("coder-2", "coder-1");
      const { outcome, sleeps, resolved } = await claim(
        [undefined, new Disputed("modules/auth#1", race.contenders)],
        40,
        race,
      );
      expect(outcome).toEqual({
        granted: false,
        reason: "claim settled for coder-2 (the first claim in the store)",
        causedBy: "coder-2",
      });
      expect(sleeps).toEqual([]);
      expect(resolved).toEqual([]);
    });
  });

  describe("a claim escalated with something else than claims (the lead's to settle)", () => {
    const waiting = {
      type: "agent-log",
      agentId: "coder-1",
      text: "Claim on auth escalated: waiting for a decision…",
    };

    it("announces the escalation and waits, a quarter of thinkMs at a time, for the lead", async () => {
      const { outcome, sleeps, events, announced } = await claim(
        [undefined, disputed, disputed, "claimed-by:coder-1"],
        40,
      );
      expect(outcome).toEqual({ granted: true });
      expect(sleeps).toEqual([10, 10]);
      expect(events).toEqual([claimEvent, waiting]);
      expect(announced).toEqual([escalation]);
    });

    it("yields when the lead settles it for the other claimer", async () => {
      const { outcome } = await claim([undefined, disputed, "claimed-by:coder-2"]);
      expect(outcome).toEqual({
        granted: false,
        reason: "claim settled for coder-2 (the first claim in the store)",
        causedBy: "coder-2",
      });
    });

    it("gives up after twelve waits when nobody settles it", async () => {
      const { outcome, sleeps } = await claim([undefined, disputed], 2);
      expect(outcome).toEqual({
        granted: false,
        reason: "claim escalated and never settled",
        causedBy: null,
      });
      expect(sleeps).toEqual(Array.from({ length: 12 }, () => 1));
    });
  });
});
