import { describe, expect, it } from "vitest";
import { UnknownEscalationError } from "../../../src/crdt/errors/unknown-escalation-error.js";
import { StateReplica } from "../../../src/crdt/state-replica.js";
import { SharedCtxError } from "../../../src/errors.js";

/** Resolves `escalationId` on `replica` and returns what it threw. */
function resolveError(replica: StateReplica, escalationId: string): unknown {
  try {
    replica.resolve(escalationId, "RS256", "lead");
  } catch (error) {
    return error;
  }
  throw new Error("resolve did not throw");
}

describe("UnknownEscalationError", () => {
  it("names the id and says the replica knows none", () => {
    const replica = new StateReplica({ subjectId: "s", peerId: 1 });
    const error = resolveError(replica, "plan/owner#0");
    expect(error).toBeInstanceOf(UnknownEscalationError);
    expect(SharedCtxError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({
      name: "UnknownEscalationError",
      message: "No escalation plan/owner#0 on this replica",
      escalationId: "plan/owner#0",
      known: [],
    });
  });

  it("lists the ids the replica knows, to spot a typo", () => {
    let clock = 0;
    const now = () => ++clock;
    const a = new StateReplica({ subjectId: "s", peerId: 1, now });
    const b = new StateReplica({ subjectId: "s", peerId: 2, now });
    a.write("alice", "plan", "owner", "alice");
    a.write("alice", "plan", "decision", "RS256");
    b.write("bob", "plan", "owner", "bob");
    b.write("bob", "plan", "decision", "HS256");
    a.import([b.doc.export({ mode: "update" })]);
    const error = resolveError(a, "plan/ownr#0");
    expect(error).toMatchObject({
      name: "UnknownEscalationError",
      message: "No escalation plan/ownr#0 on this replica (known: plan/decision#0, plan/owner#0)",
      escalationId: "plan/ownr#0",
      known: ["plan/decision#0", "plan/owner#0"],
    });
  });
});
