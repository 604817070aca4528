import { StateReplica } from "../../../src/crdt/state-replica.js";

/**
 * Two replicas of one subject with fixed peers (1 and 2) and one shared clock counting up from 1;
 * `exchange()` gives each what the other holds, as after concurrent writes.
 */
export function replicaPair() {
  let clock = 0;
  const now = () => ++clock;
  const create = (peerId: number) => new StateReplica({ subjectId: "s", peerId, now });
  const a = create(1);
  const b = create(2);
  const exchange = () => {
    a.import([b.exportSnapshot()]);
    b.import([a.exportSnapshot()]);
  };
  return { a, b, exchange };
}
