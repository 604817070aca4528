import { describe, expect, it } from "vitest";
import { Disputed } from "../../src/crdt/disputed.js";
import type { StateReplica } from "../../src/crdt/state-replica.js";
import { replica } from "./support/replicas.js";

describe("StateReplica writes to a map with a disputed leaf", () => {
  /** a and b write plan/config.db.host concurrently; a holds both. */
  function disputedLeaf(): StateReplica {
    const a = replica(1);
    const b = replica(2);
    a.write("alice", "plan", "config", { db: { host: "a" }, port: 1 });
    b.write("bob", "plan", "config", { db: { host: "b" } });
    a.import([b.doc.export({ mode: "update" })]);
    return a;
  }

  function hostContenders(replicaHoldingIt: StateReplica): unknown {
    const config = replicaHoldingIt.get("plan", "config") as { db: { host: unknown } };
    const host = config.db.host;
    return host instanceof Disputed ? host.contenders.map((contender) => contender.value) : host;
  }

  it.each<[string, Record<string, unknown>, unknown]>([
    ["the leaf joins its dispute", { db: { host: "c" } }, ["a", "b", "c"]],
    ["another leaf leaves the dispute as it was", { port: 2 }, ["a", "b"]],
    ["a sibling leaf leaves the dispute as it was", { db: { user: "u" } }, ["a", "b"]],
  ])("a write to %s", (_, value, expected) => {
    const a = disputedLeaf();
    a.write("alice", "plan", "config", value);
    const contenders = hostContenders(a);
    expect(contenders).toStrictEqual(expected);
  });
});
