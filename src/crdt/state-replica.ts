import { LoroDoc, type PeerID } from "loro-crdt";
import { compareDistinct } from "./collections.js";
import { cloneValue, Disputed } from "./disputed.js";
import { FieldKindError } from "./errors/field-kind-error.js";
import { InvalidStateValueError } from "./errors/invalid-state-value-error.js";
import { UnknownEscalationError } from "./errors/unknown-escalation-error.js";
import type { Escalation } from "./escalation.js";
import { addEntry, type FieldIndex, fieldOf } from "./field-index.js";
import { inferFieldKind, type NamespaceSchema, valueFitsKind } from "./field-kind.js";
import { defineOwn, isJsonValue } from "./json-value.js";
import { type FieldView, materializeField } from "./materialize-field.js";
import { extendView } from "./quiet-field.js";
import {
  listContainerSuffix,
  logInsert,
  ownEntriesName,
  pastOf,
  readAdded,
} from "./replica-log.js";
import type { RaisedEscalation, StateChange, StateReplicaOptions } from "./replica-types.js";
import {
  compareEntries,
  type EntryRecord,
  encodeEntry,
  entryId,
  fieldId,
  type StoredEntry,
} from "./state-entry.js";
import { declaredKind, joinedHeads, resolvedValue, storedValue } from "./write-value.js";

export type { RaisedEscalation, StateChange, StateReplicaOptions } from "./replica-types.js";

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
    const stored = storedValue(kind, value, view);
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
    const joined = view ? joinedHeads(kind, value, view) : [];
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
    const { kind, stored } = resolvedValue(this.#schema, escalation, fieldKey, path, value);
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
    const { arrived, ownInserted } = readAdded(this.doc, before, after, {
      peer: this.peer,
      container: this.#ownContainer,
    });
    // Its own earlier writes, back from the store: the next one goes after them.
    this.#ownLength += ownInserted;
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
    // One Loro change in the log, at the replica's own count: nobody else inserts into its list.
    const lamport = logInsert(this.doc, {
      peer: this.peer,
      counter,
      container: this.#ownContainer,
      position: this.#ownLength,
      row: encodeEntry(stored),
      lastOwn: this.#lastOwn,
    });
    this.#ownNext = counter + 1;
    this.#ownLength++;
    this.#lastOwn = { counter, lamport };
    this.#settle([{ id, peer: this.peer, counter, data: stored }], true);
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
      const field = fieldOf(this.#fields, this.#namespaces, entry);
      const { id } = field;
      const { inOrder, harmless } = addEntry(field, entry, local);
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
    this.#tell(changes, raised);
  }

  /**
   * Listeners run last, on a settled state; one that throws must not stop the others (an
   * escalation already marked raised would never be announced) nor the caller's import or write.
   */
  #tell(changes: readonly StateChange[], raised: readonly RaisedEscalation[]): void {
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
    return (pastOf(this.doc, this.#pastCache, later).get(earlier.peer) ?? 0) > earlier.counter;
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
