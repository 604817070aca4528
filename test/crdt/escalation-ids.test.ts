import { describe, expect, it } from "vitest";
import { StateReplica } from "../../src/crdt/state-replica.js";

/** Two replicas of one subject that write concurrently, then exchange what they wrote. */
function concurrentReplicas() {
  let clock = 0;
  const now = () => ++clock;
  const a = new StateReplica({ subjectId: "s", peerId: 1, now });
  const b = new StateReplica({ subjectId: "s", peerId: 2, now });
  const exchange = () => {
    a.import([b.exportSnapshot()]);
    b.import([a.exportSnapshot()]);
  };
  return { a, b, exchange };
}

// An escalation id is what `resolve` takes: two disputes under one id would make a resolution
// settle whichever of them a replica happens to list first.
describe("escalation ids", () => {
  it("tell a register named `cfg.x` from the leaf `x` of a map `cfg`", () => {
    const { a, b, exchange } = concurrentReplicas();
    a.write("alice", "plan", "cfg", { x: 1 });
    b.write("bob", "plan", "cfg", { x: 2 });
    a.write("alice", "plan", "cfg.x", "one");
    b.write("bob", "plan", "cfg.x", "two");
    exchange();
    const ids = a.escalations().map((escalation) => escalation.id);
    expect(ids).toHaveLength(2);
    expect(new Set(ids).size).toBe(2);
    expect(b.escalations().map((escalation) => escalation.id)).toStrictEqual(ids);
    expect(ids).toContain("plan/cfg.x#0");
    expect(ids).toContain("plan/cfg\\.x#0");

    b.import([a.resolve("plan/cfg\\.x#0", "one", "alice")]);
    expect(b.get("plan", "cfg.x")).toBe("one");
    expect(
      b.escalations().filter((escalation) => escalation.resolution === undefined),
    ).toHaveLength(1);
  });

  it("tell namespaces and keys apart where a `/` could join them either way", () => {
    const { a, b, exchange } = concurrentReplicas();
    for (const [namespace, key] of [
      ["a/b", "c"],
      ["a", "b/c"],
    ] as const) {
      a.write("alice", namespace, key, "one");
      b.write("bob", namespace, key, "two");
    }
    exchange();
    expect(
      a
        .escalations()
        .map((escalation) => escalation.id)
        .sort(),
    ).toStrictEqual(["a/b\\/c#0", "a\\/b/c#0"]);
  });
});
