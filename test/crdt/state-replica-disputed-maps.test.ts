import { describe, expect, it } from "vitest";
import { Disputed } from "../../src/crdt/disputed.js";
import type { StateReplica } from "../../src/crdt/state-replica.js";
import { replicaWithDisputedHost } from "./support/replicas.js";

describe("StateReplica writes to a map with a disputed leaf", () => {
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
    const a = replicaWithDisputedHost();
    a.write("alice", "plan", "config", value);
    const contenders = hostContenders(a);
    expect(contenders).toStrictEqual(expected);
  });
});
