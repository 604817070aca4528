import { compareDistinct } from "./collections.js";
import type { FieldKind } from "./field-kind.js";
import { attributeLazily, contenderOf, elementsOf, mergeKind } from "./field-values.js";
import { canonicalJson, defineOwn, isPlainObject } from "./json-value.js";
import { type Leaf, leavesOf, setAtPath } from "./map-leaves.js";
import type { FieldView } from "./materialize-field.js";
import type { EntryRecord } from "./state-entry.js";

// The one-pass paths: a field that cannot hold a dispute is read without the escalation
// machinery, and a view is extended in place by an entry that sorts last.

/**
 * The kind of a field that cannot hold a dispute, whoever wrote it and in whatever order: one
 * kind, no resolution, no join, and either a mergeable kind (set, text, counter: they merge
 * everything) or a register written by one peer alone (each write saw the one before). Such a
 * field skips the escalation machinery: reading it costs one pass over its entries.
 */
export function quietKind(entries: readonly EntryRecord[]): Exclude<FieldKind, "map"> | undefined {
  const first = entries[0];
  if (!first) return undefined;
  const kind = first.data.f;
  if (kind === "map") return undefined;
  for (const entry of entries) {
    if (entry.data.f !== kind || entry.data.r !== undefined || entry.data.j !== undefined) {
      return undefined;
    }
    if (kind === "register" && entry.peer !== first.peer) return undefined;
  }
  return kind;
}

/**
 * A map field in which every leaf path was written by one peer alone, and no path lies under
 * another (no object against a scalar, no nested write replacing leaves): nothing is concurrent at
 * any path, so each path holds its last write. One pass; undefined when that does not hold.
 */
export function quietMap(entries: readonly EntryRecord[]): FieldView | undefined {
  const last = new Map<string, Leaf>();
  const writer = new Map<string, string>();
  let generation = 0;
  for (const entry of entries) {
    if (entry.data.f !== "map" || entry.data.r !== undefined || entry.data.j !== undefined) {
      return undefined;
    }
    generation = Math.max(generation, entry.data.g);
    for (const leaf of leavesOf(entry)) {
      const peer = writer.get(leaf.pathKey);
      if (peer === undefined) writer.set(leaf.pathKey, entry.peer);
      else if (peer !== entry.peer) return undefined;
      // Entries come in causal order and one peer's writes each saw the one before: last wins.
      last.set(leaf.pathKey, leaf);
    }
  }
  if (last.size === 0) return undefined;
  for (const leaf of last.values()) {
    for (let length = 0; length < leaf.path.length; length++) {
      if (writer.has(JSON.stringify(leaf.path.slice(0, length)))) return undefined;
    }
  }
  // The same path order and the same shape as `mergeMap`, so both paths give identical JSON.
  const paths = [...last.values()].sort(
    (left, right) =>
      left.path.length - right.path.length || compareDistinct(left.pathKey, right.pathKey),
  );
  const value: Record<string, unknown> = {};
  const attribution: Record<string, unknown> = {};
  for (const leaf of paths) {
    if (leaf.isMarker) {
      setAtPath(value, leaf.path, {});
      continue;
    }
    setAtPath(value, leaf.path, leaf.value);
    defineOwn(attribution, leaf.path.join("."), {
      agentId: leaf.entry.data.a,
      value: leaf.value,
      at: leaf.entry.data.t,
    });
  }
  return {
    value,
    kind: "map",
    attribution,
    escalations: [],
    announcers: new Map(),
    disputedHeads: new Map(),
    generation,
    escalationPaths: new Map(),
  };
}

/** The view of a field `quietKind` vouched for: one pass, no escalation. */
export function quietView(
  kind: Exclude<FieldKind, "map">,
  entries: readonly EntryRecord[],
): FieldView {
  let generation = 0;
  for (const entry of entries) generation = Math.max(generation, entry.data.g);
  const view: FieldView = {
    value: undefined,
    kind,
    attribution: undefined,
    escalations: [],
    announcers: new Map(),
    disputedHeads: new Map(),
    generation,
    escalationPaths: new Map(),
  };
  if (kind === "register") {
    const last = entries[entries.length - 1];
    view.value = last?.data.v;
    view.attribution = last && contenderOf(last);
    return view;
  }
  const merged = mergeKind(kind, entries);
  view.value = merged.value;
  view.attribution = merged.attribution;
  view.elements = merged.elements;
  if (merged.setMembers) attributeLazily(view, merged.setMembers);
  return view;
}

/**
 * The view after `entry`, of the view's kind and ordered after every entry it was derived from,
 * joined `entries` (the field's entries, now ending with it): a set gains its new elements, a
 * text its line, a counter its increment, with no re-derivation. Undefined when the view cannot
 * be extended (another kind, a dispute, a resolution or a join): the caller derives it again.
 */
export function extendView(
  view: FieldView | undefined,
  entry: EntryRecord,
  entries: readonly EntryRecord[],
): FieldView | undefined {
  if (!view || view.kind !== entry.data.f || view.escalations.length > 0) return undefined;
  if (entry.data.r !== undefined || entry.data.j !== undefined) return undefined;
  // The cached view owns its values (readers get copies), so extending in place is safe.
  switch (view.kind) {
    case "text": {
      if (typeof view.value !== "string" || !Array.isArray(view.attribution)) return undefined;
      const line = String(entry.data.v);
      view.value = view.attribution.length === 0 ? line : `${view.value}\n${line}`;
      view.attribution.push({ agentId: entry.data.a, text: entry.data.v, at: entry.data.t });
      return view;
    }
    case "counter": {
      if (typeof view.value !== "number" || !isPlainObject(view.attribution)) return undefined;
      const increment = Number(entry.data.v);
      const byAgent = view.attribution;
      const before = Object.hasOwn(byAgent, entry.data.a) ? Number(byAgent[entry.data.a]) : 0;
      view.value += increment;
      defineOwn(byAgent, entry.data.a, before + increment);
      return view;
    }
    case "set": {
      const { elements } = view;
      if (!elements || !Array.isArray(view.value)) return undefined;
      for (const element of elementsOf(entry)) {
        const canonical = canonicalJson(element);
        if (elements.has(canonical)) continue;
        elements.add(canonical);
        view.value.push(element);
      }
      attributeLazily(view, entries);
      return view;
    }
  }
  return undefined;
}
