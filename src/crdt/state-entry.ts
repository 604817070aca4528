import type { JsonValue } from "../context/context-store.js";
import { type FieldKind, fieldKinds } from "./field-kind.js";
import { isJsonValue, isPlainObject } from "./json-value.js";

/**
 * One write as stored in the replica's Loro document: an element of its writer's entry list,
 * named by the id of the Loro operation that inserted it (`<peer>:<counter>`). Entries are never
 * changed or deleted; every field's value is derived from its entries, the same way on every
 * replica. Stored as a JSON array in this order (format 2, `encodeEntry`); format 1 stored the
 * same properties as a JSON object, and both are read.
 */
export interface StoredEntry {
  /** Namespace. */
  n: string;
  /** Field key. */
  k: string;
  /** The kind this write was made as. */
  f: FieldKind;
  /** The agent it is attributed to. */
  a: string;
  /** set: the elements added; text: the appended segment; counter: the increment; else the value. */
  v: JsonValue;
  /** Writer's clock, ms since the epoch. */
  t: number;
  /** Generation of the field: how many resolutions the writer had seen (it names escalations). */
  g: number;
  /**
   * Order key, a Lamport clock: one more than the largest order key the writer held. It grows
   * along causality, so sorting by (s, peer, counter) is one total order that respects
   * "happened before".
   */
  s: number;
  /**
   * Written on a disputed register: the heads it joins instead of replacing. A plain write never
   * ends a dispute; only `resolve` does.
   */
  j?: string[];
  /** A resolution: the escalation it resolves. */
  r?: string;
  /** A resolution of one map leaf: the leaf's path (absent: the whole field). */
  rp?: string[];
  /** A resolution: the writer's version vector, i.e. exactly which writes it has seen. */
  rv?: Record<string, number>;
}

/** A stored entry with its operation id. */
export interface EntryRecord {
  readonly id: string;
  readonly peer: string;
  readonly counter: number;
  readonly data: StoredEntry;
}

/** The key of an entry in the `log` map. */
export function entryId(peer: string, counter: number): string {
  return `${peer}:${counter}`;
}

/** The stored array's positions (format 2); the last four are optional, null when absent. */
const positions = ["n", "k", "f", "a", "v", "t", "g", "s", "j", "r", "rp", "rv"] as const;
/** Positions every entry has. */
const requiredPositions = 8;

/**
 * How an entry is stored in its Loro list: one JSON string holding an array, its properties in the
 * order of `positions`. A string is one Loro value, where an object is a tree of them (writing,
 * importing and reading back strings is 2-5x faster, measured in docs/crdt.md); an array without
 * property names is a third shorter than the object format 1 stored, and a third cheaper to
 * parse on import, where every entry is parsed.
 */
export function encodeEntry(entry: StoredEntry): string {
  const row: unknown[] = [entry.n, entry.k, entry.f, entry.a, entry.v, entry.t, entry.g, entry.s];
  const optional = [entry.j, entry.r, entry.rp, entry.rv];
  let last = optional.length;
  while (last > 0 && optional[last - 1] === undefined) last--;
  for (let index = 0; index < last; index++) row.push(optional[index] ?? null);
  return JSON.stringify(row);
}

/**
 * Reads an entry written by any replica (a JSON string of an array or, format 1, of an object; or
 * an object as stored before entries were strings), named by the operation that inserted it: its
 * peer (a decimal string, as Loro names it) and counter. Undefined when it is not one (ignored,
 * not fatal).
 */
export function parseEntryAt(
  peer: string,
  counter: number,
  stored: unknown,
): EntryRecord | undefined {
  const parsed = typeof stored === "string" ? parseJson(stored) : stored;
  const value = Array.isArray(parsed) ? fromRow(parsed) : parsed;
  if (!isPlainObject(value)) return undefined;
  const { n, k, f, a, v, t, g, s } = value;
  if (typeof n !== "string" || typeof k !== "string" || typeof a !== "string") return undefined;
  if (typeof f !== "string" || !(fieldKinds as readonly string[]).includes(f)) return undefined;
  if (typeof t !== "number" || typeof g !== "number" || typeof s !== "number") return undefined;
  // Checked for text too: JSON.parse yields Infinity for `1e999`, and an object may lack `v`.
  if (!isJsonValue(v)) return undefined;
  const { j, r, rp, rv } = value;
  if (j !== undefined && !isStringArray(j)) return undefined;
  if (r !== undefined && typeof r !== "string") return undefined;
  if (rp !== undefined && !isStringArray(rp)) return undefined;
  if (rv !== undefined && !isPlainObject(rv)) return undefined;
  return { id: entryId(peer, counter), peer, counter, data: value as unknown as StoredEntry };
}

/** A format 2 row as the object it stands for (absent optional properties left out). */
function fromRow(row: readonly unknown[]): Record<string, unknown> | undefined {
  // A shorter row lacks the order key, so parseEntryAt refuses it like any entry without one.
  if (row.length > positions.length) return undefined;
  const entry: Record<string, unknown> = {};
  for (let index = 0; index < row.length; index++) {
    const name = positions[index];
    const item = row[index];
    if (name !== undefined && (index < requiredPositions || item !== null)) entry[name] = item;
  }
  return entry;
}

function isStringArray(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === "string");
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    // Not JSON: not an entry. (Returned below: a `return` here would be a block no test can
    // tell from an empty one, which returns undefined too.)
  }
  return undefined;
}

/** The field an entry belongs to, as one map key. */
export function fieldId(namespace: string, key: string): string {
  // The namespace's length makes the pair unambiguous whatever characters either holds.
  return `${namespace.length}:${namespace}/${key}`;
}

/** Compares peers (decimal strings of 64-bit ids) numerically. */
export function comparePeers(left: string, right: string): number {
  if (left.length !== right.length) return left.length - right.length;
  return left < right ? -1 : left > right ? 1 : 0;
}

/** The total order of entries every replica agrees on (respects causality). */
export function compareEntries(left: EntryRecord, right: EntryRecord): number {
  return (
    left.data.s - right.data.s ||
    comparePeers(left.peer, right.peer) ||
    left.counter - right.counter
  );
}
