import { StateReplica } from "../../../src/crdt/state-replica.js";

/** A replica of subject "s" with peer id `peerId` and a clock that counts 1, 2, 3, ... */
export function replica(peerId = 1): StateReplica {
  let clock = 0;
  return new StateReplica({ subjectId: "s", peerId, now: () => ++clock });
}
