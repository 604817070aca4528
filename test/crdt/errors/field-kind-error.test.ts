import { describe, expect, it } from "vitest";
import { FieldKindError } from "../../../src/crdt/errors/field-kind-error.js";
import { StateReplica } from "../../../src/crdt/state-replica.js";
import { SharedCtxError } from "../../../src/errors.js";

describe("FieldKindError", () => {
  it.each([
    ["a string", "tags", "auth", "string"],
    ["null", "tags", null, "null"],
    ["an array", "runs", [1], "array"],
    ["an object", "runs", { n: 1 }, "object"],
    ["a boolean", "tags", true, "boolean"],
  ])("names the field, its declared kind and what it was given: %s", (_, key, value, received) => {
    const replica = new StateReplica({
      subjectId: "s",
      peerId: 1,
      schema: { plan: { tags: "set", runs: "counter" } },
    });
    let thrown: unknown;
    try {
      replica.write("alice", "plan", key, value);
    } catch (error) {
      thrown = error;
    }
    const expected = key === "tags" ? "set" : "counter";
    expect(thrown).toBeInstanceOf(FieldKindError);
    expect(SharedCtxError.isInstance(thrown)).toBe(true);
    expect(thrown).toMatchObject({
      name: "FieldKindError",
      message: `plan/${key} is declared as ${expected} and cannot take a ${received}`,
      namespace: "plan",
      key,
      expected,
      received,
    });
  });
});
