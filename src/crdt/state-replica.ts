import { type JsonOp, LoroDoc, type OpId, type PeerID } from "loro-crdt";
import type { JsonValue } from "../context/context-store.js";
import { SharedCtxError } from "../errors.js";
import { compareDistinct } from "./collections.js";
import { Disputed } from "./disputed.js";
import { FieldKindError } from "./errors/field-kind-error.js";
import { InvalidStateValueError } from "./errors/invalid-state-value-error.js";
import { UnknownEscalationError } from "./errors/unknown-escalation-error.js";
import type { Escalation } from "./escalation.js";
import {
  type FieldKind,
  inferFieldKind,
  type NamespaceSchema,
  valueFitsKind,
} from "./field-kind.js";
import { canonicalJson, defineOwn, isJsonValue, isPlainObject } from "./json-value.js";
import { type FieldView, materializeField } from "./materialize-field.js";
import { extendView } from "./quiet-field.js";
import {
  compareEntries,
  type EntryRecord,
  encodeEntry,
  entryId,
  fieldId,
  parseEntryAt,
  type StoredEntry,
} from "./state-entry.js";

/**
 * Where a replica writes its entries: a root list of its own, `entries-<peer>`, one JSON string
 * per element (each operation of the document is one entry, named by its operation id). One
 * writer per list, so a write's position is simply how many entries the replica has written: it
 * needs no materialised list (see `#append`).
 */
function ownEntriesName(peer: string): string {
  return `entries-${peer}`;
}
/**
 * How Loro names the entry lists in an operation: `cid:root-entries-<peer>:List`, and
 * `cid:root-entries:List` for the one list every peer appended to in stored format 1 (documents
 * written before per-peer lists): both are read, so old documents load and merge on.
 */
const entriesContainerPrefix = "cid:root-entries";
const listContainerSuffix = ":List";

/** Options of a `StateReplica`. */
export interface StateReplicaOptions {
  subjectId: string;
  /** Unique per replica: two replicas with one peer id corrupt each other's history. */
  peerId: bigint | number;
  /** Declared field kinds per namespace; other fields are inferred. */
  schema?: Record<string, NamespaceSchema>;
  /** @default Date.now */
  now?: () => number;
  /**
   * Called with the error of a change or escalation listener that threw. Every listener still
   * runs, and the write or import that called them still completes.
   * @default none: the first listener error is rethrown once every listener has run (the
   * replica's state is already settled by then)
   */
  onError?: (error: unknown) => void;
}

/** A change applied to the replica (a local write or an imported one). */
export interface StateChange {
  namespace: string;
  key: string;
  agentId: string;
  local: boolean;
}

/** An escalation seen by this replica for the first time. */
export interface RaisedEscalation {
  escalation: Escalation;
  /** True when this replica is the one that announces it on the timeline (see docs/crdt.md). */
  announcedHere: boolean;
}

interface FieldIndex {
  /** `fieldId(namespace, key)`: the key of the field's cached view. */
  readonly id: string;
  readonly namespace: string;
  readonly key: string;
  readonly entries: EntryRecord[];
  sorted: boolean;
  readonly kinds: Set<FieldKind>;
  /** The generation a new write belongs to (kept here so a write needs no full view). */
  generation: number;
  /** Only registers, maps and fields with two kinds can escalate: others are derived on read. */
  mayEscalate: boolean;
  /**
   * Known to hold no dispute (no disputed cell, no kind mismatch) as of its last entry. A local
   * write to a quiet field needs no view: it cannot join a dispute, and it cannot start one (see
   * `#settle`). False means "unknown until the next view".
   */
  quiet: boolean;
}

/**
 * One agent's Loro replica of a subject's shared state, with no I/O: writes produce update
 * bytes, `import` takes other replicas' bytes. `SharedState` adds the store; tests and the
 * merge benchmark exchange bytes directly.
 */
export class StateReplica {
  /**
   * The Loro document, kept detached: read its operation log (`export`, `exportJsonUpdates`,
   * version vectors), never its state, and write only through this replica.
   */
  readonly doc: LoroDoc;
  /** This replica's Loro peer id, as a decimal string. */
  readonly peer: string;
  readonly subjectId: string;
  /** This replica's entry list, as Loro names it in an operation. */
  readonly #ownContainer: string;
  readonly #schema: Record<string, NamespaceSchema>;
  readonly #now: () => number;
  readonly #onError: ((error: unknown) => void) | undefined;
  readonly #fields = new Map<string, FieldIndex>();
  /** The same fields by namespace, then key: found without building a string per entry. */
  readonly #namespaces = new Map<string, Map<string, FieldIndex>>();
  readonly #views = new Map<string, FieldView>();
  readonly #pastCache = new Map<string, Map<string, number>>();
  readonly #raised = new Set<string>();
  readonly #changeListeners = new Set<(change: StateChange) => void>();
  readonly #escalationListeners = new Set<(raised: RaisedEscalation) => void>();
  /** This replica's next operation counter (each write is exactly one operation). */
  #ownNext = 0;
  /** How many entries this replica's own list holds: the position of its next write. */
  #ownLength = 0;
  /** The last own write's counter and Lamport timestamp: the next write's usually follows it. */
  #lastOwn: { counter: number; lamport: number } | undefined;
  /** The largest order key of any entry held: a new write takes the next one (like a Lamport clock). */
  #maxOrder = 0;

  constructor(options: StateReplicaOptions) {
    this.subjectId = options.subjectId;
    this.#schema = options.schema ?? {};
    this.#now = options.now ?? Date.now;
    this.#onError = options.onError;
    this.doc = new LoroDoc();
    this.doc.setPeerId(options.peerId);
    this.peer = this.doc.peerIdStr;
    this.#ownContainer = `cid:root-${ownEntriesName(this.peer)}${listContainerSuffix}`;
    // The replica reads Loro's operation log, never the document state Loro would materialise
    // from it: detached, an import only adds operations to the log. Applying them to the state
    // cost 2-3x the import here, and with long-concurrent histories O(history) per import
    // (measured in docs/crdt.md). Writes go straight into the log too (`#append`).
    this.doc.detach();
  }

  /**
   * Like `write`, and returns the update bytes of this write (undefined when nothing was written),
   * for replicas that exchange bytes directly.
   */
  writeUpdate(
    agentId: string,
    namespace: string,
    key: string,
    value: unknown,
  ): Uint8Array | undefined {
    const from = this.ownCounter();
    if (!this.write(agentId, namespace, key, value)) return undefined;
    return this.exportOwn(from, this.ownCounter());
  }

  /**
   * Writes `value` to a field as `agentId`, merging by the field's kind. Returns false when the
   * write changed nothing (e.g. text the field already holds), so there is nothing to publish.
   * @throws InvalidStateValueError when the value is not JSON.
   * @throws FieldKindError when the schema declares a kind the value does not fit.
   */
  write(agentId: string, namespace: string, key: string, value: unknown): boolean {
    if (!isJsonValue(value)) throw new InvalidStateValueError({ namespace, key });
    const declared = declaredKind(this.#schema, namespace, key);
    if (declared !== undefined && !valueFitsKind(declared, value)) {
      throw new FieldKindError({ namespace, key, expected: declared, value });
    }
    const kind = declared ?? inferFieldKind(key, value);
    const field = this.#namespaces.get(namespace)?.get(key);
    // Sets and counters never need the current value, nor registers and maps with no dispute to
    // join: writing them stays O(1) as fields grow. Text needs the text it may extend.
    const needsView =
      field !== undefined &&
      (kind === "text" || ((kind === "register" || kind === "map") && !field.quiet));
    const view = needsView ? this.#view(namespace, key) : undefined;
    const stored = this.#storedValue(kind, value, view);
    if (stored === undefined) return false;
    const entry: Omit<StoredEntry, "s"> = {
      n: namespace,
      k: key,
      f: kind,
      a: agentId,
      v: stored,
      t: this.#now(),
      g: field?.generation ?? 0,
    };
    const joined = view ? this.#joinedHeads(kind, value, view) : [];
    if (joined.length > 0) entry.j = joined;
    this.#append(entry);
    return true;
  }

  /**
   * Writes an attributed resolution of an escalation: every replica converges on `value` for
   * the disputed field (or map leaf), and the escalation shows the resolution.
   * Returns the update bytes of the resolution.
   * @throws UnknownEscalationError when this replica has not seen the escalation.
   */
  resolve(escalationId: string, value: unknown, by: string): Uint8Array {
    const found = this.#findEscalation(escalationId);
    if (!found) {
      throw new UnknownEscalationError(
        escalationId,
        this.escalations().map((escalation) => escalation.id),
      );
    }
    const { escalation, view, path, fieldKey } = found;
    if (!isJsonValue(value)) {
      throw new InvalidStateValueError({ namespace: escalation.namespace, key: escalation.key });
    }
    const declared = declaredKind(this.#schema, escalation.namespace, fieldKey);
    let kind: FieldKind;
    let stored: JsonValue = value;
    if (path !== undefined) {
      kind = "map";
      stored = nestAtPath(path, value);
    } else if (declared !== undefined) {
      if (!valueFitsKind(declared, value)) {
        throw new FieldKindError({
          namespace: escalation.namespace,
          key: fieldKey,
          expected: declared,
          value,
        });
      }
      kind = declared;
    } else {
      kind =
        escalation.reason === "concurrent-register" ? "register" : inferFieldKind(fieldKey, value);
    }
    const entry: Omit<StoredEntry, "s"> = {
      n: escalation.namespace,
      k: fieldKey,
      f: kind,
      a: by,
      v: stored,
      t: this.#now(),
      g: view.generation,
      r: escalationId,
      rv: Object.fromEntries(this.doc.oplogVersion().toJSON()),
    };
    if (path !== undefined) entry.rp = [...path];
    const from = this.ownCounter();
    this.#append(entry);
    return this.exportOwn(from, this.ownCounter());
  }

  /** Imports other replicas' updates or snapshots (in any order; duplicates are ignored). */
  import(updates: readonly Uint8Array[]): void {
    if (updates.length === 0) return;
    const before = this.doc.oplogVersion();
    // One batch: Loro decodes and applies every pending update in one pass.
    if (updates.length === 1 && updates[0]) this.doc.import(updates[0]);
    else this.doc.importBatch([...updates]);
    const after = this.doc.oplogVersion();
    if (before.compare(after) === 0) return;
    // Exactly the operations this import added, with their ids, in one call: the cost follows the
    // size of the import, not of the document.
    const added = this.doc.exportJsonUpdates(before, after, false);
    const arrived: EntryRecord[] = [];
    for (const change of added.changes) {
      // Loro names a change `<counter>@<peer>`: the peer is read once per change, not per entry.
      const peer = change.id.slice(change.id.indexOf("@") + 1);
      for (const op of change.ops) {
        const count = readInserted(peer, op, arrived);
        // Its own earlier writes, back from the store: the next one goes after them.
        if (op.container === this.#ownContainer && peer === this.peer) this.#ownLength += count;
      }
    }
    // A reopened replica (same peer id) gets its own earlier writes back from the store.
    this.#ownNext = Math.max(this.#ownNext, after.get(this.peer as PeerID) ?? 0);
    this.#settle(arrived, false);
  }

  /** The merged value, a `Disputed`, or undefined when the field was never written. */
  get(namespace: string, key: string): unknown {
    if (!this.#namespaces.get(namespace)?.has(key)) return undefined;
    return cloneValue(this.#view(namespace, key).value);
  }

  /** Every field of a namespace, by key. */
  list(namespace: string): Record<string, unknown> {
    const result: Record<string, unknown> = {};
    const fields = this.#namespaces.get(namespace);
    if (!fields) return result;
    for (const key of [...fields.keys()].sort()) {
      const value = this.get(namespace, key);
      if (value !== undefined) result[key] = value;
    }
    return result;
  }

  /** The namespaces written so far. */
  namespaces(): string[] {
    return [...this.#namespaces.keys()].sort();
  }

  /** Which agent wrote each surviving element or value of a field (see docs/crdt.md). */
  attribution(namespace: string, key: string): unknown {
    if (!this.#namespaces.get(namespace)?.has(key)) return undefined;
    return JSON.parse(JSON.stringify(this.#view(namespace, key).attribution ?? null));
  }

  /** Every escalation, open or resolved, ordered by id. */
  escalations(): Escalation[] {
    const all: Escalation[] = [];
    for (const field of this.#fields.values()) {
      if (field.mayEscalate) all.push(...this.#view(field.namespace, field.key).escalations);
    }
    // Ids are unique: escalations of different fields and leaves never share one.
    return structuredClone(all).sort((left, right) => compareDistinct(left.id, right.id));
  }

  /** The whole state as plain JSON (disputes as `{ disputed, contenders }`), keys sorted. */
  toJSON(): Record<string, Record<string, unknown>> {
    // Straight from the cached views, copied once by the JSON round trip (not per field first).
    const result: Record<string, Record<string, unknown>> = {};
    for (const namespace of this.namespaces()) {
      const fields: Record<string, unknown> = {};
      const keys = this.#namespaces.get(namespace)?.keys() ?? [];
      for (const key of [...keys].sort()) {
        const value = this.#view(namespace, key).value;
        if (value !== undefined) defineOwn(fields, key, value);
      }
      defineOwn(result, namespace, fields);
    }
    return JSON.parse(JSON.stringify(result));
  }

  /**
   * Everything this replica holds, as one import (what a `state_snapshot` episode carries): the
   * whole operation log as a Loro update. Not a Loro state snapshot: replicas never read the
   * state, and a detached document builds it from the whole history to export one (58-106 ms
   * at 6,400 entries, against 2.5-3.9 ms for the log, which is 1.6x the bytes and opens as fast).
   * Either imports the same way, so state snapshots in the store (format 1) still load.
   */
  exportSnapshot(): Uint8Array {
    return this.doc.export({ mode: "update" });
  }

  /** This replica's own operations with counters in [from, to), as update bytes. */
  exportOwn(from: number, to: number): Uint8Array {
    return this.doc.export({
      mode: "updates-in-range",
      spans: [{ id: { peer: this.peer as PeerID, counter: from }, len: to - from }],
    });
  }

  /** How many operations this replica has written (its next counter). */
  ownCounter(): number {
    return this.#ownNext;
  }

  /** The version vector: operations seen per peer. */
  version(): Record<string, number> {
    return Object.fromEntries(this.doc.oplogVersion().toJSON());
  }

  /** Called for every change applied, local or imported. */
  onChange(listener: (change: StateChange) => void): () => void {
    this.#changeListeners.add(listener);
    return () => this.#changeListeners.delete(listener);
  }

  /** Called once per escalation id, when this replica first sees it. */
  onEscalation(listener: (raised: RaisedEscalation) => void): () => void {
    this.#escalationListeners.add(listener);
    return () => this.#escalationListeners.delete(listener);
  }

  #append(entry: Omit<StoredEntry, "s">): void {
    const counter = this.#ownNext;
    const id = entryId(this.peer, counter);
    const stored: StoredEntry = { ...entry, s: this.#maxOrder + 1 };
    // The write is one Loro change, authored in Loro's JSON update format and imported into the
    // log: what `list.push` + `commit` would record (its dependencies are everything this replica
    // holds, so causality is Loro's as before), without the document state `push` needs. Its
    // position is the replica's own count: nobody else inserts into its list.
    const frontiers = this.doc.oplogFrontiers();
    const lamport = this.#nextLamport(frontiers);
    const change = {
      id: `${counter}@${this.peer}`,
      timestamp: 0,
      deps: frontiers.map((head) => `${head.counter}@${head.peer}`),
      lamport,
      msg: null,
      ops: [
        {
          container: this.#ownContainer,
          content: { type: "insert", pos: this.#ownLength, value: [encodeEntry(stored)] },
          counter,
        },
      ],
    };
    const status = this.doc.importJsonUpdates(
      JSON.stringify({ schema_version: 1, start_version: {}, peers: null, changes: [change] }),
    );
    // Its dependencies are the log's own heads, so Loro cannot find one missing; if it ever did,
    // the write must fail rather than be counted as written.
    if (status.pending) {
      throw new SharedCtxError(`Loro did not log write ${id}: one of its dependencies is missing`);
    }
    this.#ownNext = counter + 1;
    this.#ownLength++;
    this.#lastOwn = { counter, lamport };
    this.#settle([{ id, peer: this.peer, counter, data: stored }], true);
  }

  /**
   * The Lamport timestamp of a change depending on `frontiers`: one more than the largest of
   * theirs, as Loro gives a local change. Loro (1.17) computes a logged change's timestamp from its
   * dependencies itself, whatever number the change carries (test/crdt/state-replica-clock.test.ts):
   * this keeps the change what a commit would log, but no reader can tell a wrong number.
   */
  #nextLamport(frontiers: readonly OpId[]): number {
    let next = 0;
    for (const head of frontiers) {
      const last = this.#lastOwn;
      if (last && head.peer === this.peer && head.counter === last.counter) {
        next = Math.max(next, last.lamport + 1);
        continue;
      }
      const change = this.doc.getChangeAt(head);
      next = Math.max(next, change.lamport + (head.counter - change.counter) + 1);
    }
    return next;
  }

  /** What a write stores, given what the field holds; undefined when it would change nothing. */
  #storedValue(
    kind: FieldKind,
    value: JsonValue,
    view: FieldView | undefined,
  ): JsonValue | undefined {
    const sameKind = view !== undefined && view.kind === kind;
    switch (kind) {
      case "text": {
        const text = String(value);
        if (!sameKind || !Array.isArray(view.attribution)) return text;
        // A read-modify-write append: store only what was added, so concurrent appends all stay.
        // The writer may have read an older text (fewer segments): try the longest prefix first.
        const lines = view.attribution as Array<{ text: string }>;
        // Most appends do not repeat the text read: skip the prefix search (O(length)).
        if (!text.startsWith(lines[0]?.text ?? "")) {
          return text === "" ? undefined : text;
        }
        const segments = lines.map((segment) => segment.text);
        let prefix = segments.join("\n");
        for (let count = segments.length; count > 0; count--) {
          if (prefix.length > 0 && text.startsWith(prefix)) {
            const rest = text.slice(prefix.length);
            if (rest === "") return undefined;
            if (rest.startsWith("\n")) return rest.slice(1);
          }
          prefix = prefix.slice(
            0,
            Math.max(0, prefix.length - (segments[count - 1]?.length ?? 0) - 1),
          );
        }
        return text === "" ? undefined : text;
      }
      case "set": {
        // A set write never reads the field (see `needsView` in `write`): it stores its elements
        // once each, and reading the field drops the ones already present.
        const elements = Array.isArray(value) ? value : [value];
        const present = new Set<string>();
        const added: JsonValue[] = [];
        for (const element of elements) {
          const canonical = canonicalJson(element);
          if (present.has(canonical)) continue;
          present.add(canonical);
          added.push(element);
        }
        return added;
      }
      case "counter":
      case "register":
      case "map":
        return value;
    }
  }

  /** On a disputed register (or map leaf) a plain write joins the dispute instead of ending it. */
  #joinedHeads(kind: FieldKind, value: JsonValue, view: FieldView): string[] {
    if (kind === "register") return view.disputedHeads.get("") ?? [];
    if (!isPlainObject(value) || kind !== "map") return [];
    const written = leafPaths(value);
    const joined = new Set<string>();
    for (const [pathKey, heads] of view.disputedHeads) {
      if (pathKey === "") continue;
      const path = JSON.parse(pathKey) as string[];
      if (written.some((leaf) => related(leaf, path))) for (const head of heads) joined.add(head);
    }
    return [...joined];
  }

  /** Indexes new entries, re-derives fields that may escalate, then tells listeners. */
  #settle(arrived: readonly EntryRecord[], local: boolean): void {
    if (arrived.length === 0) return;
    /** Fields whose escalations must be re-derived now: only those an entry may have disputed. */
    const touched = new Map<string, FieldIndex>();
    // One change per field and agent, in the order first seen.
    const changes: StateChange[] = [];
    const changedBy = new Map<FieldIndex, Set<string>>();
    for (const entry of arrived) {
      let keys = this.#namespaces.get(entry.data.n);
      if (!keys) {
        keys = new Map();
        this.#namespaces.set(entry.data.n, keys);
      }
      let field = keys.get(entry.data.k);
      if (!field) {
        const id = fieldId(entry.data.n, entry.data.k);
        field = {
          id,
          namespace: entry.data.n,
          key: entry.data.k,
          entries: [],
          sorted: true,
          kinds: new Set(),
          generation: 0,
          mayEscalate: false,
          quiet: true,
        };
        this.#fields.set(id, field);
        keys.set(field.key, field);
      }
      const { id } = field;
      const last = field.entries[field.entries.length - 1];
      field.entries.push(entry);
      const inOrder = last === undefined || compareEntries(last, entry) < 0;
      if (!inOrder) field.sorted = false;
      // A local write has seen every entry of the field, so it replaces them all (it is concurrent
      // with none): unless it joins a dispute (j), resolves one (r) or brings a second kind, it
      // neither raises nor changes an escalation, and a quiet field stays quiet.
      const harmless =
        local &&
        field.quiet &&
        entry.data.j === undefined &&
        entry.data.r === undefined &&
        (field.kinds.size === 0 || (field.kinds.size === 1 && field.kinds.has(entry.data.f)));
      field.kinds.add(entry.data.f);
      field.generation = Math.max(
        field.generation,
        entry.data.r === undefined ? entry.data.g : entry.data.g + 1,
      );
      field.mayEscalate ||=
        field.kinds.size > 1 || entry.data.f === "register" || entry.data.f === "map";
      this.#maxOrder = Math.max(this.#maxOrder, entry.data.s);
      // An entry that sorts after every other one of a set, text or counter field with no dispute
      // (a local write, or most imports in live sync) extends the cached view in O(its size);
      // anything else drops the view, derived again on the next read.
      const extended =
        inOrder && field.kinds.size === 1 && field.sorted
          ? extendView(this.#views.get(id), entry, field.entries)
          : undefined;
      if (extended) this.#views.set(id, extended);
      else this.#views.delete(id);
      if (harmless) {
        // Still quiet: a view is derived on the next read only.
      } else {
        field.quiet = false;
        touched.set(id, field);
      }
      let agents = changedBy.get(field);
      if (!agents) {
        agents = new Set();
        changedBy.set(field, agents);
      }
      if (!agents.has(entry.data.a)) {
        agents.add(entry.data.a);
        changes.push({ namespace: field.namespace, key: field.key, agentId: entry.data.a, local });
      }
    }
    const raised: RaisedEscalation[] = [];
    for (const field of touched.values()) {
      if (!field.mayEscalate) {
        field.quiet = true;
        continue;
      }
      const view = this.#view(field.namespace, field.key);
      for (const escalation of view.escalations) {
        if (this.#raised.has(escalation.id)) continue;
        this.#raised.add(escalation.id);
        raised.push({
          escalation: structuredClone(escalation),
          announcedHere: view.announcers.get(escalation.id) === this.peer,
        });
      }
    }
    // Listeners run last, on a settled state; one that throws must not stop the others (an
    // escalation already marked raised would never be announced) nor the caller's import or write.
    const failures: unknown[] = [];
    const call = <T>(listener: (value: T) => void, value: T): void => {
      try {
        listener(value);
      } catch (error) {
        if (this.#onError) this.#onError(error);
        else failures.push(error);
      }
    };
    for (const change of changes) {
      for (const listener of [...this.#changeListeners]) call(listener, change);
    }
    for (const item of raised) {
      for (const listener of [...this.#escalationListeners]) call(listener, item);
    }
    if (failures.length > 0) throw failures[0];
  }

  #view(namespace: string, key: string): FieldView {
    const id = fieldId(namespace, key);
    const cached = this.#views.get(id);
    if (cached) return cached;
    const field = this.#fields.get(id);
    const entries = field?.entries ?? [];
    if (field && !field.sorted) {
      entries.sort(compareEntries);
      field.sorted = true;
    }
    const view = materializeField({
      subjectId: this.subjectId,
      namespace,
      key,
      entries,
      before: (earlier, later) => this.#happenedBefore(earlier, later),
    });
    this.#views.set(id, view);
    if (field) field.quiet = view.disputedHeads.size === 0 && !(view.value instanceof Disputed);
    return view;
  }

  /** Whether `later`'s writer had `earlier` in its document, from Loro's causal history. */
  #happenedBefore(earlier: EntryRecord, later: EntryRecord): boolean {
    if (earlier.peer === later.peer) return earlier.counter < later.counter;
    const seen = later.data.rv;
    if (seen) return (seen[earlier.peer] ?? 0) > earlier.counter;
    // The order key grows along causality: a write with a smaller or equal key cannot follow.
    if (earlier.data.s >= later.data.s) return false;
    return (this.#pastOf(later).get(earlier.peer) ?? 0) > earlier.counter;
  }

  #pastOf(entry: EntryRecord): Map<string, number> {
    const cached = this.#pastCache.get(entry.id);
    if (cached) return cached;
    // Ops of one change share its dependencies (Loro only merges commits with nothing imported
    // in between), so the change's deps are this op's view of other peers.
    const change = this.doc.getChangeAt({ peer: entry.peer as PeerID, counter: entry.counter });
    const past = new Map<string, number>(this.doc.frontiersToVV(change.deps).toJSON());
    this.#pastCache.set(entry.id, past);
    return past;
  }

  #findEscalation(escalationId: string):
    | {
        escalation: Escalation;
        view: FieldView;
        path: readonly string[] | undefined;
        fieldKey: string;
      }
    | undefined {
    for (const field of this.#fields.values()) {
      if (!field.mayEscalate) continue;
      const view = this.#view(field.namespace, field.key);
      const escalation = view.escalations.find((candidate) => candidate.id === escalationId);
      if (escalation) {
        return {
          escalation,
          view,
          path: view.escalationPaths.get(escalationId),
          fieldKey: field.key,
        };
      }
    }
    return undefined;
  }
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

function nestAtPath(path: readonly string[], value: JsonValue): JsonValue {
  let nested: JsonValue = value;
  for (const part of [...path].reverse()) nested = { [part]: nested };
  return nested;
}

function leafPaths(value: Record<string, unknown>, prefix: string[] = []): string[][] {
  const paths: string[][] = [];
  const names = Object.keys(value);
  if (names.length === 0) paths.push(prefix);
  for (const name of names) {
    const child = value[name];
    if (isPlainObject(child)) paths.push(...leafPaths(child, [...prefix, name]));
    else paths.push([...prefix, name]);
  }
  return paths;
}

function related(left: readonly string[], right: readonly string[]): boolean {
  const length = Math.min(left.length, right.length);
  for (let index = 0; index < length; index++) if (left[index] !== right[index]) return false;
  return true;
}

/**
 * The kind the schema declares for `namespace.key`, reading own members only: both names come
 * from callers and other replicas, and `schema["constructor"]` must not find `Object`.
 */
function declaredKind(
  schema: Readonly<Record<string, Readonly<Record<string, FieldKind>> | undefined>>,
  namespace: string,
  key: string,
): FieldKind | undefined {
  const fields = Object.hasOwn(schema, namespace) ? schema[namespace] : undefined;
  return fields && Object.hasOwn(fields, key) ? fields[key] : undefined;
}

/** A deep copy that keeps `Disputed` instances (callers must not be able to change a cached view). */
function cloneValue(value: unknown): unknown {
  if (value instanceof Disputed) return value;
  if (Array.isArray(value)) return value.map(cloneValue);
  if (isPlainObject(value)) {
    // fromEntries defines own properties: a `__proto__` key stays a key.
    return Object.fromEntries(
      Object.entries(value).map(([name, child]) => [name, cloneValue(child)]),
    );
  }
  return value;
}
