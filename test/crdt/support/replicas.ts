import { StateReplica } from "../../../src/crdt/state-replica.js";

/** A replica of subject "s" with peer id `peerId` and a clock that counts 1, 2, 3, ... */
export function replica(peerId = 1): StateReplica {
  let clock = 0;
  return new StateReplica({ subjectId: "s", peerId, now: () => ++clock });
}

/** `to` imports all that `from` holds, as an update: one direction of a sync. */
export function receive(to: StateReplica, from: StateReplica): void {
  to.import([from.doc.export({ mode: "update" })]);
}

/**
 * Two replicas that write plan/config.db.host concurrently ("a" beside port 1, and "b"); returns
 * the first once it holds both writes.
 */
export function replicaWithDisputedHost(): StateReplica {
  const a = replica(1);
  const b = replica(2);
  a.write("alice", "plan", "config", { db: { host: "a" }, port: 1 });
  b.write("bob", "plan", "config", { db: { host: "b" } });
  receive(a, b);
  return a;
}
