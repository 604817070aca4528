import { groupBy } from "./collections.js";
import { type Contender, Disputed } from "./disputed.js";
import type { Escalation, EscalationReason } from "./escalation.js";
import type { FieldKind } from "./field-kind.js";
import { kindContenders } from "./field-values.js";
import { canonicalJson } from "./json-value.js";
import { indexLeaves, leavesOf, uniqueEntries, valueAtPath } from "./map-leaves.js";
import type { FieldContext } from "./materialize-field.js";
import type { EntryRecord } from "./state-entry.js";

// The escalations of a field: who saw whom (heads, chains, resolutions covering a write), and
// each kind of divergence recorded once per generation: kind mismatches, concurrent register
// values, and both at each leaf of a map.

/** Records one escalation of a cell (the field, or a map leaf) with its resolution, if any. */
export type RecordEscalation = (
  id: string,
  cellKey: string,
  path: readonly string[] | undefined,
  reason: EscalationReason,
  members: readonly EntryRecord[],
  contenders: Contender[],
  candidates: readonly EntryRecord[],
) => Escalation;

/** The `Disputed` value of a cell, named by its open escalation (recorded if it has none). */
export type DisputeOf = (
  cellKey: string,
  path: readonly string[] | undefined,
  reason: EscalationReason,
  contenders: Contender[],
  members: readonly EntryRecord[],
) => Disputed;

/**
 * The writes no later write has replaced. Entries come in an order that respects causality,
 * so a write can only be replaced by one after it.
 */
export function headsOf(
  members: readonly EntryRecord[],
  supersedes: (later: EntryRecord, earlier: EntryRecord) => boolean,
): EntryRecord[] {
  let heads: EntryRecord[] = [];
  for (const member of members) {
    heads = heads.filter((head) => !supersedes(member, head));
    heads.push(member);
  }
  return heads;
}

/** True when every entry replaced the one before it (in a sorted cell): nothing is concurrent. */
function isChain(
  entries: readonly EntryRecord[],
  concurrent: (left: EntryRecord, right: EntryRecord) => boolean,
): boolean {
  for (let index = 1; index < entries.length; index++) {
    const previous = entries[index - 1];
    const current = entries[index];
    if (!previous || !current || current.data.j !== undefined) return false;
    if (concurrent(previous, current)) return false;
  }
  return true;
}

/** Whether `resolution` had seen `entry` when it was written. */
export function coveredBy(entry: EntryRecord, resolution: EntryRecord): boolean {
  if (entry === resolution) return false;
  return (resolution.data.rv?.[entry.peer] ?? 0) > entry.counter;
}

/** Entries by kind, in the order each kind first appears. */
export function groupByKind(entries: readonly EntryRecord[]): Map<FieldKind, EntryRecord[]> {
  return groupBy(entries, (entry) => entry.data.f);
}

/** Entries by generation, in the order each generation first appears. */
export function groupByGeneration(entries: readonly EntryRecord[]): Map<number, EntryRecord[]> {
  return groupBy(entries, (entry) => entry.data.g);
}

/** Marks every write that has a concurrent write with a different value, one escalation per generation. */
export function recordRegisterDisputes(options: {
  cell: ReadonlyArray<{ entry: EntryRecord; value: unknown }>;
  idPrefix: string;
  cellKey: string;
  path: readonly string[] | undefined;
  concurrent: (left: EntryRecord, right: EntryRecord) => boolean;
  candidates: readonly EntryRecord[];
  record: RecordEscalation;
}): void {
  const { cell, concurrent } = options;
  const canonical = cell.map((item) => canonicalJson(item.value));
  if (new Set(canonical).size < 2) return;
  // Cheap common case: one writer after another, each having seen the previous write.
  if (
    isChain(
      cell.map((item) => item.entry),
      concurrent,
    )
  )
    return;
  const contested = new Set<number>();
  for (let index = 0; index < cell.length; index++) {
    const item = cell[index];
    if (!item) continue;
    for (let otherIndex = index + 1; otherIndex < cell.length; otherIndex++) {
      const other = cell[otherIndex];
      if (!other || canonical[otherIndex] === canonical[index]) continue;
      if (contested.has(index) && contested.has(otherIndex)) continue;
      if (concurrent(item.entry, other.entry)) {
        contested.add(index);
        contested.add(otherIndex);
      }
    }
  }
  const contestedItems = cell.filter((_, index) => contested.has(index));
  const byGeneration = groupBy(contestedItems, (item) => item.entry.data.g);
  for (const [g, members] of byGeneration) {
    options.record(
      `${options.idPrefix}#${g}`,
      options.cellKey,
      options.path,
      "concurrent-register",
      members.map((member) => member.entry),
      members.map((member) => ({
        agentId: member.entry.data.a,
        value: member.value,
        at: member.entry.data.t,
      })),
      options.candidates,
    );
  }
}

/**
 * Kind mismatches, one escalation per generation. A generation's members are its writes plus
 * the resolutions that opened it (so a write of another kind on top of a resolution counts).
 */
export function recordKindMismatches(field: FieldContext): void {
  const { written, byGeneration, record, idBase, key, fieldResolutions } = field;
  for (const g of [...written].sort((left, right) => left - right)) {
    const members = byGeneration.get(g) ?? [];
    const byKind = groupByKind(members);
    if (byKind.size < 2) continue;
    record(
      `${idBase(undefined)}#${g}:kind`,
      key,
      undefined,
      "kind-mismatch",
      members,
      kindContenders(byKind),
      fieldResolutions,
    );
  }
}

/**
 * Map leaves: each leaf path is a register; a scalar against an object at one path is a kind
 * mismatch of that leaf.
 */
export function recordLeafDisputes(field: FieldContext): void {
  const { entries, key, concurrent, record, idBase, leafResolutionsFor } = field;
  const mapEntries = entries.filter((entry) => entry.data.f === "map");
  const allLeaves = mapEntries.flatMap((entry) => leavesOf(entry));
  const allIndex = indexLeaves(allLeaves);
  for (const [pathKey, atPath] of allIndex.byPath) {
    const path = JSON.parse(pathKey) as string[];
    const scalars = atPath.filter((leaf) => !leaf.isMarker);
    const dotted = [key, ...path].join(".");
    const candidates = leafResolutionsFor(path);
    recordRegisterDisputes({
      cell: scalars.map((leaf) => ({ entry: leaf.entry, value: leaf.value })),
      idPrefix: idBase(path),
      cellKey: dotted,
      path,
      concurrent,
      candidates,
      record,
    });
    const objectSide = uniqueEntries([
      ...(allIndex.under.get(pathKey) ?? []),
      ...atPath.filter((leaf) => leaf.isMarker),
    ]);
    const scalarSide = uniqueEntries(scalars);
    const contested = new Set<EntryRecord>();
    for (const scalar of scalarSide) {
      for (const object of objectSide) {
        if (concurrent(scalar, object)) {
          contested.add(scalar);
          contested.add(object);
        }
      }
    }
    for (const [g, members] of groupByGeneration([...contested])) {
      record(
        `${idBase(path)}#${g}:kind`,
        dotted,
        path,
        "kind-mismatch",
        members,
        members.map((member) => ({
          agentId: member.data.a,
          value: valueAtPath(member.data.v, path),
          at: member.data.t,
        })),
        candidates,
      );
    }
  }
}

/** The field's `DisputeOf`: a live dispute names the open escalation of its cell and reason. */
export function disputesOf(field: FieldContext): DisputeOf {
  const openFor = (cellKey: string, reason: EscalationReason): Escalation | undefined =>
    [...field.escalations.values()]
      .filter((escalation) => escalation.key === cellKey && escalation.reason === reason)
      .find((escalation) => escalation.resolution === undefined);

  return (cellKey, path, reason, contenders, members) => {
    // A live dispute with no open escalation of its own is rare (two concurrent resolutions of
    // different kinds open a generation no write is in), but never drop a dispute: name it from
    // its members so replicas still agree.
    const escalation =
      openFor(cellKey, reason) ??
      field.record(
        `${field.idBase(path)}#${members.map((member) => member.id).join(",")}`,
        cellKey,
        path,
        reason,
        members,
        contenders,
        [],
      );
    return new Disputed(escalation.id, contenders);
  };
}
