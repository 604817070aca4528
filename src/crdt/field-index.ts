import type { FieldKind } from "./field-kind.js";
import { compareEntries, type EntryRecord, fieldId } from "./state-entry.js";

// A replica's index of its fields: each field's entries, kinds and generation, kept as entries
// arrive so a write or a read of a quiet field needs no full view.

/** One field of a replica, as its entries arrive. */
export interface FieldIndex {
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

/** The field `entry` belongs to, added to both indexes when it is new. */
export function fieldOf(
  fields: Map<string, FieldIndex>,
  namespaces: Map<string, Map<string, FieldIndex>>,
  entry: EntryRecord,
): FieldIndex {
  let keys = namespaces.get(entry.data.n);
  if (!keys) {
    keys = new Map();
    namespaces.set(entry.data.n, keys);
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
    fields.set(id, field);
    keys.set(field.key, field);
  }
  return field;
}

/**
 * Adds `entry` to its field: whether it sorts after every other entry (`inOrder`), and whether
 * it is `harmless` (a local write that can neither raise nor change an escalation).
 */
export function addEntry(
  field: FieldIndex,
  entry: EntryRecord,
  local: boolean,
): { inOrder: boolean; harmless: boolean } {
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
  return { inOrder, harmless };
}
