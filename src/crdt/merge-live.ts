import type { DisputeOf } from "./field-disputes.js";
import { groupByKind, headsOf } from "./field-disputes.js";
import type { FieldKind } from "./field-kind.js";
import { contenderOf, kindContenders, mergeKind } from "./field-values.js";
import { canonicalJson } from "./json-value.js";
import type { FieldContext } from "./materialize-field.js";
import { mergeMap } from "./merge-map.js";
import type { EntryRecord } from "./state-entry.js";

/** A field's value from its live entries, before the view wraps it. */
export interface MergedField {
  value: unknown;
  attribution: unknown;
  /** The kind of the value, when the live writes agree on one. */
  kind: FieldKind | undefined;
  /** A set's members, whose attribution is built on first read. */
  setMembers?: readonly EntryRecord[] | undefined;
}

/**
 * The value of the field's live entries, merged by their kind: two kinds live at once are a
 * kind mismatch, a register with two heads of different values is disputed.
 */
export function mergeLive(field: FieldContext, disputeOf: DisputeOf): MergedField {
  const { key, live, resolutions, supersedes, disputedHeads } = field;
  const liveByKind = groupByKind(live);
  const [only] = liveByKind;
  if (liveByKind.size > 1) {
    const disputed = disputeOf(key, undefined, "kind-mismatch", kindContenders(liveByKind), live);
    return { value: disputed, attribution: disputed.toJSON(), kind: undefined };
  }
  if (!only) return { value: undefined, attribution: undefined, kind: undefined };
  const [kind, members] = only;
  switch (kind) {
    case "set":
    case "text":
    case "counter": {
      const merged = mergeKind(kind, members);
      return {
        value: merged.value,
        attribution: merged.attribution,
        kind,
        setMembers: merged.setMembers,
      };
    }
    case "register":
      return { ...mergeRegister(field, members, disputeOf), kind };
    case "map":
      return {
        ...mergeMap({ key, members, resolutions, supersedes, disputedHeads, disputeOf }),
        kind,
      };
  }
}

/** A register's heads: one value, or a dispute between their different values. */
function mergeRegister(
  field: FieldContext,
  members: readonly EntryRecord[],
  disputeOf: DisputeOf,
): { value: unknown; attribution: unknown } {
  const heads = headsOf(members, field.supersedes);
  const contenders = heads.map(contenderOf);
  if (new Set(heads.map((head) => canonicalJson(head.data.v))).size > 1) {
    field.disputedHeads.set(
      "",
      heads.map((head) => head.id),
    );
    const disputed = disputeOf(field.key, undefined, "concurrent-register", contenders, heads);
    return { value: disputed, attribution: disputed.toJSON() };
  }
  const last = contenders[contenders.length - 1];
  return { value: last?.value, attribution: last };
}
