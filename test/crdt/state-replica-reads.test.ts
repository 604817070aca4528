import { describe, expect, it } from "vitest";
import type { StateReplica } from "../../src/crdt/state-replica.js";
import { receive, replica } from "./support/replicas.js";

/** a and b write plan/token and plan/alpha concurrently, then exchange. */
function twoDisputes(): { a: StateReplica; b: StateReplica } {
  const a = replica(1);
  const b = replica(2);
  a.write("alice", "plan", "token", "RS256");
  a.write("alice", "plan", "alpha", 1);
  b.write("bob", "plan", "token", "HS256");
  b.write("bob", "plan", "alpha", 2);
  receive(a, b);
  receive(b, a);
  return { a, b };
}

describe("StateReplica reads", () => {
  it("an empty list written to a set creates the field", () => {
    const writer = replica();
    expect(writer.write("alice", "plan", "tags", [])).toBe(true);
    expect(writer.get("plan", "tags")).toStrictEqual([]);
    expect(writer.list("plan")).toStrictEqual({ tags: [] });
  });

  it("a set write repeating an element holds and attributes it once", () => {
    const writer = replica();
    writer.write("alice", "plan", "tags", ["a", { b: 1, c: 2 }, "a", { c: 2, b: 1 }]);
    expect(writer.get("plan", "tags")).toStrictEqual(["a", { b: 1, c: 2 }]);
    expect(writer.attribution("plan", "tags")).toStrictEqual([
      { agentId: "alice", value: "a", at: 1 },
      { agentId: "alice", value: { b: 1, c: 2 }, at: 1 },
    ]);
  });

  it("a field or namespace never written reads as undefined", () => {
    const writer = replica();
    writer.write("alice", "plan", "tags", ["a"]);
    expect(writer.get("plan", "other")).toBeUndefined();
    expect(writer.get("other", "tags")).toBeUndefined();
    expect(writer.attribution("plan", "other")).toBeUndefined();
    expect(writer.list("other")).toStrictEqual({});
  });

  it("lists fields and namespaces sorted by key", () => {
    const writer = replica();
    writer.write("alice", "plan", "zeta", 1);
    writer.write("alice", "plan", "alpha", 2);
    writer.write("alice", "build", "notes", "ok");
    expect(writer.namespaces()).toStrictEqual(["build", "plan"]);
    expect(Object.keys(writer.list("plan"))).toStrictEqual(["alpha", "zeta"]);
    expect(JSON.stringify(writer.toJSON())).toBe(
      '{"build":{"notes":"ok"},"plan":{"alpha":2,"zeta":1}}',
    );
  });

  it("orders escalations by id, the same on every replica", () => {
    const { a, b } = twoDisputes();
    expect(a.escalations().map((escalation) => escalation.id)).toStrictEqual([
      "plan/alpha#0",
      "plan/token#0",
    ]);
    expect(b.escalations()).toStrictEqual(a.escalations());
  });

  it("returns copies: changing what a read returned changes nothing held", () => {
    const { a } = twoDisputes();
    a.write("alice", "plan", "tags", ["x"]);
    (a.get("plan", "tags") as string[]).push("y");
    (a.attribution("plan", "tags") as unknown[]).push("y");
    const [escalation] = a.escalations();
    if (escalation) escalation.id = "changed";
    expect(a.get("plan", "tags")).toStrictEqual(["x"]);
    expect(a.attribution("plan", "tags")).toHaveLength(1);
    expect(a.escalations()[0]?.id).toBe("plan/alpha#0");
  });

  it("version counts the operations held per peer", () => {
    const { a } = twoDisputes();
    expect(a.version()).toStrictEqual({ [a.peer]: 2, "2": 2 });
  });
});
