import { LoroDoc } from "loro-crdt";
import { describe, expect, it } from "vitest";
import { StateReplica } from "../../src/crdt/state-replica.js";

/**
 * Loro's JSON update of one change by peer 1 that appends to its entry list, as `StateReplica`
 * logs a write, carrying the Lamport timestamp `lamport`.
 */
function updateWith(counter: number, deps: string[], lamport: number): string {
  const ops = [
    {
      container: "cid:root-entries-1:List",
      content: { type: "insert", pos: counter, value: [`entry ${counter}`] },
      counter,
    },
  ];
  const change = { id: `${counter}@1`, timestamp: 0, deps, lamport, msg: null, ops };
  return JSON.stringify({ schema_version: 1, start_version: {}, peers: null, changes: [change] });
}

/** The Lamport timestamp of one operation: its change's plus its offset in the change. */
function lamportAt(doc: LoroDoc, peer: string, counter: number): number {
  const change = doc.getChangeAt({ peer: peer as `${number}`, counter });
  return change.lamport + counter - change.counter;
}

/**
 * A write logs its change with the Lamport timestamp a commit would give it (`#nextLamport`).
 * Loro takes the change's place in the history from its dependencies, not from that number: these
 * tests pin both, so that the Stryker directives in `#nextLamport` (its mutants cannot be seen)
 * are revisited if a Loro upgrade starts trusting the number.
 */
describe("the Lamport timestamps of a replica's writes", () => {
  it("are one past their dependencies', across replicas and a reopened replica", () => {
    const a = new StateReplica({ subjectId: "s", peerId: 1 });
    const b = new StateReplica({ subjectId: "s", peerId: 2 });
    a.write("alice", "plan", "tags", ["x"]);
    a.write("alice", "plan", "tags", ["y"]);
    b.write("bob", "plan", "tags", ["z"]);
    b.import([a.exportSnapshot()]);
    b.write("bob", "plan", "tags", ["w"]);
    const reopened = new StateReplica({ subjectId: "s", peerId: 1 });
    reopened.import([b.exportSnapshot()]);
    reopened.write("alice", "plan", "tags", ["v"]);
    const at = (peer: string, counter: number) => lamportAt(reopened.doc, peer, counter);
    expect([at("1", 0), at("1", 1), at("2", 0), at("2", 1), at("1", 2)]).toStrictEqual([
      0, 1, 0, 2, 3,
    ]);
  });

  it("are Loro's own: Loro places a logged change by its dependencies, whatever number it carries", () => {
    const doc = new LoroDoc();
    doc.setPeerId(1);
    doc.detach();
    doc.importJsonUpdates(updateWith(0, [], 55));
    doc.importJsonUpdates(updateWith(1, ["0@1"], 0));
    doc.importJsonUpdates(updateWith(2, ["1@1"], 999));
    expect([0, 1, 2].map((counter) => lamportAt(doc, "1", counter))).toStrictEqual([0, 1, 2]);
  });
});
