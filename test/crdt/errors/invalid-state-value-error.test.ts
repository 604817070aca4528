import { describe, expect, it } from "vitest";
import { InvalidStateValueError } from "../../../src/crdt/errors/invalid-state-value-error.js";
import { StateReplica } from "../../../src/crdt/state-replica.js";
import { SharedCtxError } from "../../../src/errors.js";

describe("InvalidStateValueError", () => {
  it.each([
    ["undefined", undefined],
    ["a function", () => 1],
    ["NaN", Number.NaN],
    ["a class instance", new Date(0)],
  ])("names the field and what shared state holds when given %s", (_, value) => {
    const replica = new StateReplica({ subjectId: "s", peerId: 1 });
    let thrown: unknown;
    try {
      replica.write("alice", "plan", "owner", value);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(InvalidStateValueError);
    expect(SharedCtxError.isInstance(thrown)).toBe(true);
    expect(thrown).toMatchObject({
      name: "InvalidStateValueError",
      message:
        "plan/owner: shared state holds JSON values only (no undefined, functions, NaN or class instances)",
      namespace: "plan",
      key: "owner",
    });
    expect(replica.toJSON()).toStrictEqual({});
  });
});
