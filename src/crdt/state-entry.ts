import type { JsonValue } from "../context/context-store.js";
import { type FieldKind, fieldKinds } from "./field-kind.js";
import { isJsonValue, isPlainObject } from "./json-value.js";

/**
 * One write as stored in the replica's Loro document: a value of the root map `log`, keyed by
 * the id of the Loro operation that inserted it (`<peer>:<counter>`). Entries are never changed
 * or deleted; every field's value is derived from its entries, the same way on every replica.
 * Short property names keep the update bytes small.
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

/**
 * How an entry is stored in the Loro map: one JSON string. A string is one Loro value, where an
 * object is a tree of them: writing, importing and reading back entries as strings is 2-5x faster
 * (measured in docs/crdt.md), and entries are never edited field by field anyway.
 */
export function encodeEntry(entry: StoredEntry): string {
  return JSON.stringify(entry);
}

/**
 * Reads an entry written by any replica (a JSON string, or an object as stored before entries
 * were strings); undefined when it is not one (ignored, not fatal).
 */
export function parseEntry(id: string, stored: unknown): EntryRecord | undefined {
  const separator = id.lastIndexOf(":");
  const peer = id.slice(0, separator);
  const counter = Number(id.slice(separator + 1));
  if (separator <= 0 || !/^\d+$/.test(peer) || !Number.isInteger(counter)) return undefined;
  return parseEntryAt(peer, counter, stored, id);
}

/**
 * `parseEntry` for an operation whose peer (a decimal string, as Loro names it) and counter are
 * already known: no id to split and check per entry on import.
 */
export function parseEntryAt(
  peer: string,
  counter: number,
  stored: unknown,
  id: string = entryId(peer, counter),
): EntryRecord | undefined {
  const value = typeof stored === "string" ? parseJson(stored) : stored;
  if (!isPlainObject(value)) return undefined;
  const { n, k, f, a, v, t, g, s } = value;
  if (typeof n !== "string" || typeof k !== "string" || typeof a !== "string") return undefined;
  if (typeof f !== "string" || !(fieldKinds as readonly string[]).includes(f)) return undefined;
  if (typeof t !== "number" || typeof g !== "number" || typeof s !== "number") return undefined;
  // JSON.parse only yields JSON: only an object stored as such needs checking.
  if (typeof stored !== "string" && !isJsonValue(v)) return undefined;
  return { id, peer, counter, data: value as unknown as StoredEntry };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
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
