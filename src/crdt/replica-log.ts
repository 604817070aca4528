import type { JsonOp, LoroDoc, OpId, PeerID, VersionVector } from "loro-crdt";
import { SharedCtxError } from "../errors.js";
import { type EntryRecord, entryId, parseEntryAt } from "./state-entry.js";

// A replica's Loro operation log: where each replica's entries live, how a write is logged
// without the document state, and which entries an import added.

/**
 * Where a replica writes its entries: a root list of its own, `entries-<peer>`, one JSON string
 * per element (each operation of the document is one entry, named by its operation id). One
 * writer per list, so a write's position is simply how many entries the replica has written: it
 * needs no materialised list (see `#append`).
 */
export function ownEntriesName(peer: string): string {
  return `entries-${peer}`;
}

/**
 * How Loro names the entry lists in an operation: `cid:root-entries-<peer>:List`, and
 * `cid:root-entries:List` for the one list every peer appended to in stored format 1 (documents
 * written before per-peer lists): both are read, so old documents load and merge on.
 */
const entriesContainerPrefix = "cid:root-entries";
export const listContainerSuffix = ":List";

/**
 * Logs one insert of `row` at `position` in the replica's own list as one Loro change, authored in
 * Loro's JSON update format and imported into the log: what `list.push` + `commit` would record
 * (its dependencies are everything this replica holds, so causality is Loro's as before), without
 * the document state `push` needs. Its position is the replica's own count: nobody else inserts
 * into its list. Returns the change's Lamport timestamp.
 * @throws SharedCtxError when Loro holds the change back (a dependency missing: never expected).
 */
export function logInsert(
  doc: LoroDoc,
  insert: {
    peer: string;
    counter: number;
    container: string;
    position: number;
    row: string;
    lastOwn: { counter: number; lamport: number } | undefined;
  },
): number {
  const { peer, counter } = insert;
  const frontiers = doc.oplogFrontiers();
  const lamport = nextLamport(doc, frontiers, peer, insert.lastOwn);
  const change = {
    id: `${counter}@${peer}`,
    timestamp: 0,
    deps: frontiers.map((head) => `${head.counter}@${head.peer}`),
    lamport,
    msg: null,
    ops: [
      {
        container: insert.container,
        content: { type: "insert", pos: insert.position, value: [insert.row] },
        counter,
      },
    ],
  };
  const status = doc.importJsonUpdates(
    JSON.stringify({ schema_version: 1, start_version: {}, peers: null, changes: [change] }),
  );
  // Its dependencies are the log's own heads, so Loro cannot find one missing; if it ever did,
  // the write must fail rather than be counted as written.
  if (status.pending) {
    const id = entryId(peer, counter);
    throw new SharedCtxError(`Loro did not log write ${id}: one of its dependencies is missing`);
  }
  return lamport;
}

/**
 * The Lamport timestamp of a change depending on `frontiers`: one more than the largest of
 * theirs, as Loro gives a local change. Loro (1.17) computes a logged change's timestamp from its
 * dependencies itself, whatever number the change carries (test/crdt/state-replica-clock.test.ts):
 * this keeps the change what a commit would log, but no reader can tell a wrong number.
 */
export function nextLamport(
  doc: LoroDoc,
  frontiers: readonly OpId[],
  peer: string,
  last: { counter: number; lamport: number } | undefined,
): number {
  let next = 0;
  for (const head of frontiers) {
    if (last && head.peer === peer && head.counter === last.counter) {
      next = Math.max(next, last.lamport + 1);
      continue;
    }
    const change = doc.getChangeAt(head);
    next = Math.max(next, change.lamport + (head.counter - change.counter) + 1);
  }
  return next;
}

/**
 * The entries an import added between two versions, in one call (the cost follows the size of the
 * import, not of the document), and how many of them the replica's own list gained.
 */
export function readAdded(
  doc: LoroDoc,
  before: VersionVector,
  after: VersionVector,
  own: { peer: string; container: string },
): { arrived: EntryRecord[]; ownInserted: number } {
  const added = doc.exportJsonUpdates(before, after, false);
  const arrived: EntryRecord[] = [];
  let ownInserted = 0;
  for (const change of added.changes) {
    // Loro names a change `<counter>@<peer>`: the peer is read once per change, not per entry.
    const peer = change.id.slice(change.id.indexOf("@") + 1);
    for (const op of change.ops) {
      const count = readInserted(peer, op, arrived);
      if (op.container === own.container && peer === own.peer) ownInserted += count;
    }
  }
  return { arrived, ownInserted };
}

/**
 * Collects the entries one imported operation inserted (one per list element, ids consecutive);
 * returns how many elements it inserted.
 */
function readInserted(peer: string, op: JsonOp, arrived: EntryRecord[]): number {
  if (op.content.type !== "insert") return 0;
  const { container } = op;
  if (!container.startsWith(entriesContainerPrefix) || !container.endsWith(listContainerSuffix)) {
    return 0;
  }
  const values = "value" in op.content ? op.content.value : undefined;
  if (!Array.isArray(values)) return 0;
  for (let offset = 0; offset < values.length; offset++) {
    const entry = parseEntryAt(peer, op.counter + offset, values[offset]);
    if (entry) arrived.push(entry);
  }
  return values.length;
}

/** The versions of other peers `entry`'s writer had seen, from its change's dependencies. */
export function pastOf(
  doc: LoroDoc,
  cache: Map<string, Map<string, number>>,
  entry: EntryRecord,
): Map<string, number> {
  const cached = cache.get(entry.id);
  if (cached) return cached;
  // Ops of one change share its dependencies (Loro only merges commits with nothing imported
  // in between), so the change's deps are this op's view of other peers.
  const change = doc.getChangeAt({ peer: entry.peer as PeerID, counter: entry.counter });
  const past = new Map<string, number>(doc.frontiersToVV(change.deps).toJSON());
  cache.set(entry.id, past);
  return past;
}
