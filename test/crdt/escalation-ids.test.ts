import { describe, expect, it } from "vitest";
import { replicaPair } from "./support/replica-pair.js";

// An escalation id is what `resolve` takes: two disputes under one id would make a resolution
// settle whichever of them a replica happens to list first.
describe("escalation ids", () => {
  it("tell a register named `cfg.x` from the leaf `x` of a map `cfg`", () => {
    const { a, b, exchange } = replicaPair();
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
    const { a, b, exchange } = replicaPair();
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
