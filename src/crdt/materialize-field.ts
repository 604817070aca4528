import type { JsonValue } from "../context/context-store.js";
import { type Contender, Disputed } from "./disputed.js";
import type { Escalation, EscalationReason } from "./escalation.js";
import type { FieldKind } from "./field-kind.js";
import { canonicalJson, defineOwn, isPlainObject } from "./json-value.js";
import type { EntryRecord } from "./state-entry.js";

/**
 * "Has `later`'s writer seen `earlier`?", answered from the replica's causal history (never true
 * of an entry and itself).
 */
export type HappenedBefore = (earlier: EntryRecord, later: EntryRecord) => boolean;

/** Who wrote a value, as `attribution()` reports it. */
export interface Attributed {
  agentId: string;
  value: unknown;
  at: number;
}

/** A field as every replica with the same entries sees it. */
export interface FieldView {
  /** The merged value; a `Disputed` when the field (or, nested, a map leaf) is disputed. */
  value: unknown;
  /** The kind of the value, when the live writes agree on one. */
  kind: FieldKind | undefined;
  /** Which agent wrote each surviving element or value (shape depends on the kind). */
  attribution: unknown;
  /** Every escalation of the field, open or resolved, in id order. */
  escalations: Escalation[];
  /** For each escalation id, the peer that announces it on the timeline. */
  announcers: Map<string, string>;
  /** Disputed register cells ("" = the field, else a map leaf path as JSON): the heads a new write joins. */
  disputedHeads: Map<string, string[]>;
  /** The generation a new write to this field belongs to. */
  generation: number;
  /** For each escalation id, the map leaf it is about (undefined: the whole field). */
  escalationPaths: Map<string, readonly string[] | undefined>;
  /** A set field: the canonical JSON of its elements, so an added entry extends it in place. */
  elements?: Set<string>;
}

interface Leaf {
  readonly entry: EntryRecord;
  readonly path: readonly string[];
  /** `path` as JSON, the key leaves are grouped by. */
  readonly pathKey: string;
  /** `undefined` for an object marker (an empty or nested object written at this path). */
  readonly value: JsonValue | undefined;
  readonly isMarker: boolean;
}

/**
 * Derives a field's value, attribution and escalations from its entries. A pure function of the
 * set of entries and their causal order, so replicas that hold the same entries agree exactly,
 * whatever order the entries arrived in.
 *
 * Merge rules (see docs/crdt.md): entries covered by a resolution (in its causal past)
 * drop out; the remaining ("live") entries merge by their kind. A register keeps the writes no
 * later write has seen (its heads); two heads with different values are a dispute. Two kinds of
 * writes in one generation of a field are a kind mismatch.
 */
export function materializeField(input: {
  subjectId: string;
  namespace: string;
  key: string;
  /** In `compareEntries` order. */
  entries: readonly EntryRecord[];
  before: HappenedBefore;
  /** Tests only: skip the one-pass paths for fields that cannot hold a dispute. */
  general?: boolean;
}): FieldView {
  const { subjectId, namespace, key, entries, before } = input;
  if (!input.general) {
    const quiet = quietKind(entries);
    if (quiet) return quietView(quiet, entries);
    const map = quietMap(entries);
    if (map) return map;
  }
  const escalations = new Map<string, Escalation>();
  const announcers = new Map<string, string>();
  const disputedHeads = new Map<string, string[]>();
  const escalationPaths = new Map<string, readonly string[] | undefined>();

  const supersedes = (later: EntryRecord, earlier: EntryRecord): boolean =>
    before(earlier, later) && !(later.data.j?.includes(earlier.id) ?? false);
  const concurrent = (left: EntryRecord, right: EntryRecord): boolean =>
    !supersedes(left, right) && !supersedes(right, left);

  const resolutions = entries.filter((entry) => entry.data.r !== undefined);
  const fieldResolutions = resolutions.filter((entry) => entry.data.rp === undefined);
  const leafResolutionsFor = (path: readonly string[]): EntryRecord[] =>
    resolutions.filter((entry) => entry.data.rp === undefined || pathsRelated(entry.data.rp, path));
  const live = entries.filter(
    (entry) => !fieldResolutions.some((resolution) => coveredBy(entry, resolution)),
  );

  // One pass: the field's generation, and each generation's members (its writes plus the
  // resolutions that opened it), in entry order.
  let generation = 0;
  const byGeneration = new Map<number, EntryRecord[]>();
  const written = new Set<number>();
  for (const entry of entries) {
    const resolution = entry.data.r !== undefined;
    generation = Math.max(generation, resolution ? entry.data.g + 1 : entry.data.g);
    if (resolution && entry.data.rp !== undefined) continue;
    const g = resolution ? entry.data.g + 1 : entry.data.g;
    if (!resolution) written.add(g);
    const group = byGeneration.get(g);
    if (group) group.push(entry);
    else byGeneration.set(g, [entry]);
  }

  const record: RecordEscalation = (
    id: string,
    cellKey: string,
    path: readonly string[] | undefined,
    reason: EscalationReason,
    members: readonly EntryRecord[],
    contenders: Contender[],
    candidates: readonly EntryRecord[],
  ): Escalation => {
    const resolver = candidates.find(
      (resolution) =>
        !members.includes(resolution) && members.every((member) => coveredBy(member, resolution)),
    );
    const escalation: Escalation = {
      id,
      subjectId,
      namespace,
      key: cellKey,
      reason,
      contenders,
      raisedAt: Math.max(...members.map((member) => member.data.t)),
    };
    if (resolver) {
      escalation.resolution = { value: resolver.data.v, by: resolver.data.a, at: resolver.data.t };
    }
    escalations.set(id, escalation);
    escalationPaths.set(id, path);
    const last = members[members.length - 1];
    if (last) announcers.set(id, last.peer);
    return escalation;
  };

  // An escalation id names its field (and leaf): `<namespace>/<key>[.<leaf path>]`. Each part is
  // escaped, so a register `cfg.x` and the leaf `x` of a map `cfg` never share an id.
  const idBase = (path: readonly string[] | undefined) =>
    `${idPart(namespace)}/${[key, ...(path ?? [])].map(idPart).join(".")}`;

  // Kind mismatches, one escalation per generation. A generation's members are its writes plus
  // the resolutions that opened it (so a write of another kind on top of a resolution counts).
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

  // Concurrent different values of the field as a register.
  const registerEntries = entries.filter((entry) => entry.data.f === "register");
  recordRegisterDisputes({
    cell: registerEntries.map((entry) => ({ entry, value: entry.data.v })),
    idPrefix: idBase(undefined),
    cellKey: key,
    path: undefined,
    concurrent,
    candidates: fieldResolutions,
    record,
  });

  // Map leaves: each leaf path is a register; a scalar against an object at one path is a
  // kind mismatch of that leaf.
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

  const openFor = (cellKey: string, reason: EscalationReason): Escalation | undefined =>
    [...escalations.values()]
      .filter((escalation) => escalation.key === cellKey && escalation.reason === reason)
      .find((escalation) => escalation.resolution === undefined);

  const disputeOf: DisputeOf = (cellKey, path, reason, contenders, members) => {
    // A live dispute with no open escalation of its own is rare (two concurrent resolutions of
    // different kinds open a generation no write is in), but never drop a dispute: name it from
    // its members so replicas still agree.
    const escalation =
      openFor(cellKey, reason) ??
      record(
        `${idBase(path)}#${members.map((member) => member.id).join(",")}`,
        cellKey,
        path,
        reason,
        members,
        contenders,
        [],
      );
    return new Disputed(escalation.id, contenders);
  };

  const liveByKind = groupByKind(live);
  const [only] = liveByKind;
  let value: unknown;
  let attribution: unknown;
  let kind: FieldKind | undefined;
  let setAttribution: readonly EntryRecord[] | undefined;
  if (liveByKind.size > 1) {
    const disputed = disputeOf(key, undefined, "kind-mismatch", kindContenders(liveByKind), live);
    value = disputed;
    attribution = disputed.toJSON();
  } else if (only) {
    const [liveKind, members] = only;
    kind = liveKind;
    switch (liveKind) {
      case "set":
      case "text":
      case "counter": {
        const merged = mergeKind(liveKind, members);
        value = merged.value;
        attribution = merged.attribution;
        setAttribution = merged.setMembers;
        break;
      }
      case "register": {
        const heads = headsOf(members, supersedes);
        const contenders = heads.map(contenderOf);
        if (new Set(heads.map((head) => canonicalJson(head.data.v))).size > 1) {
          disputedHeads.set(
            "",
            heads.map((head) => head.id),
          );
          const disputed = disputeOf(key, undefined, "concurrent-register", contenders, heads);
          value = disputed;
          attribution = disputed.toJSON();
        } else {
          const last = contenders[contenders.length - 1];
          value = last?.value;
          attribution = last;
        }
        break;
      }
      case "map": {
        const merged = mergeMap({
          key,
          members,
          resolutions,
          supersedes,
          disputedHeads,
          disputeOf,
        });
        value = merged.value;
        attribution = merged.attribution;
        break;
      }
    }
  }

  const view: FieldView = {
    value,
    kind,
    attribution,
    escalations: [...escalations.values()].sort((left, right) =>
      compareDistinct(left.id, right.id),
    ),
    announcers,
    disputedHeads,
    generation,
    escalationPaths,
  };
  if (setAttribution) attributeLazily(view, setAttribution);
  return view;
}

/**
 * The kind of a field that cannot hold a dispute, whoever wrote it and in whatever order: one
 * kind, no resolution, no join, and either a mergeable kind (set, text, counter: they merge
 * everything) or a register written by one peer alone (each write saw the one before). Such a
 * field skips the escalation machinery: reading it costs one pass over its entries.
 */
function quietKind(entries: readonly EntryRecord[]): Exclude<FieldKind, "map"> | undefined {
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
function quietMap(entries: readonly EntryRecord[]): FieldView | undefined {
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

function quietView(kind: Exclude<FieldKind, "map">, entries: readonly EntryRecord[]): FieldView {
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

/** The value of a set, text or counter field's live writes, and who wrote what. */
function mergeKind(
  kind: "set" | "text" | "counter",
  members: readonly EntryRecord[],
): {
  value: unknown;
  attribution?: unknown;
  elements?: Set<string>;
  setMembers?: readonly EntryRecord[];
} {
  switch (kind) {
    case "set": {
      // Attribution is one object per element, rarely read: built when asked for.
      const { value, elements } = mergeSet(members);
      return { value, elements, setMembers: members };
    }
    case "text":
      return {
        value: members.map((member) => String(member.data.v)).join("\n"),
        attribution: members.map((member) => ({
          agentId: member.data.a,
          text: member.data.v,
          at: member.data.t,
        })),
      };
    case "counter": {
      // Agent ids come from other replicas: a Map, then own properties (`__proto__` stays a key).
      const byAgent = new Map<string, number>();
      let total = 0;
      for (const member of members) {
        const increment = Number(member.data.v);
        total += increment;
        byAgent.set(member.data.a, (byAgent.get(member.data.a) ?? 0) + increment);
      }
      return { value: total, attribution: Object.fromEntries(byAgent) };
    }
  }
}

/** A set's attribution, built on first read (a getter, so the view stays one object). */
function attributeLazily(view: FieldView, members: readonly EntryRecord[]): void {
  let built: Attributed[] | undefined;
  Object.defineProperty(view, "attribution", {
    enumerable: true,
    configurable: true,
    get: () => {
      built ??= attributeSet(members);
      return built;
    },
  });
}

type RecordEscalation = (
  id: string,
  cellKey: string,
  path: readonly string[] | undefined,
  reason: EscalationReason,
  members: readonly EntryRecord[],
  contenders: Contender[],
  candidates: readonly EntryRecord[],
) => Escalation;

type DisputeOf = (
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
function headsOf(
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
function coveredBy(entry: EntryRecord, resolution: EntryRecord): boolean {
  if (entry === resolution) return false;
  return (resolution.data.rv?.[entry.peer] ?? 0) > entry.counter;
}

function contenderOf(entry: EntryRecord): Contender {
  return { agentId: entry.data.a, value: entry.data.v, at: entry.data.t };
}

function groupByKind(entries: readonly EntryRecord[]): Map<FieldKind, EntryRecord[]> {
  const groups = new Map<FieldKind, EntryRecord[]>();
  for (const entry of entries) {
    const group = groups.get(entry.data.f);
    if (group) group.push(entry);
    else groups.set(entry.data.f, [entry]);
  }
  return groups;
}

function groupByGeneration(entries: readonly EntryRecord[]): Map<number, EntryRecord[]> {
  const groups = new Map<number, EntryRecord[]>();
  for (const entry of entries) {
    const group = groups.get(entry.data.g);
    if (group) group.push(entry);
    else groups.set(entry.data.g, [entry]);
  }
  return groups;
}

/** One contender per kind: what that kind's writes add up to, credited to its first writer. */
function kindContenders(byKind: Map<FieldKind, EntryRecord[]>): Contender[] {
  const contenders: Contender[] = [];
  for (const [kind, members] of byKind) {
    const first = members[0];
    if (!first) continue;
    contenders.push({
      agentId: first.data.a,
      value: plainValueOf(kind, members),
      at: first.data.t,
    });
  }
  return contenders;
}

/** A kind's value without disputes, for showing a kind mismatch's contenders. */
function plainValueOf(kind: FieldKind, members: readonly EntryRecord[]): unknown {
  switch (kind) {
    case "set":
      return mergeSet(members).value;
    case "text":
      return members.map((member) => String(member.data.v)).join("\n");
    case "counter":
      return members.reduce((total, member) => total + Number(member.data.v), 0);
    case "register":
      return members[members.length - 1]?.data.v;
    case "map": {
      let merged: unknown = {};
      for (const member of members) merged = deepMerge(merged, member.data.v);
      return merged;
    }
  }
}

function deepMerge(target: unknown, source: unknown): unknown {
  if (!isPlainObject(target) || !isPlainObject(source)) return source;
  const result: Record<string, unknown> = { ...target };
  for (const [name, value] of Object.entries(source)) {
    defineOwn(
      result,
      name,
      deepMerge(Object.hasOwn(result, name) ? result[name] : undefined, value),
    );
  }
  return result;
}

/** Marks every write that has a concurrent write with a different value, one escalation per generation. */
function recordRegisterDisputes(options: {
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
  const byGeneration = new Map<number, Array<{ entry: EntryRecord; value: unknown }>>();
  for (const item of contestedItems) {
    const group = byGeneration.get(item.entry.data.g);
    if (group) group.push(item);
    else byGeneration.set(item.entry.data.g, [item]);
  }
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

/** The elements a set write adds (a lone value stands for itself). */
function elementsOf(entry: EntryRecord): JsonValue[] {
  return Array.isArray(entry.data.v) ? entry.data.v : [entry.data.v];
}

/** A set's elements in the order they were first added, without duplicates. */
function mergeSet(members: readonly EntryRecord[]): { value: JsonValue[]; elements: Set<string> } {
  const elements = new Set<string>();
  const value: JsonValue[] = [];
  for (const member of members) {
    for (const element of elementsOf(member)) {
      const canonical = canonicalJson(element);
      if (elements.has(canonical)) continue;
      elements.add(canonical);
      value.push(element);
    }
  }
  return { value, elements };
}

/** Who first added each element of a set (rarely read: built apart from the value). */
function attributeSet(members: readonly EntryRecord[]): Attributed[] {
  const seen = new Set<string>();
  const attribution: Attributed[] = [];
  for (const member of members) {
    for (const element of elementsOf(member)) {
      const canonical = canonicalJson(element);
      if (seen.has(canonical)) continue;
      seen.add(canonical);
      attribution.push({ agentId: member.data.a, value: element, at: member.data.t });
    }
  }
  return attribution;
}

function leavesOf(entry: EntryRecord): Leaf[] {
  const leaves: Leaf[] = [];
  const walk = (value: JsonValue, path: string[]): void => {
    if (isPlainObject(value)) {
      const children = Object.entries(value);
      if (children.length === 0) {
        leaves.push({
          entry,
          path,
          pathKey: JSON.stringify(path),
          value: undefined,
          isMarker: true,
        });
      }
      for (const [name, child] of children) walk(child as JsonValue, [...path, name]);
      return;
    }
    leaves.push({ entry, path, pathKey: JSON.stringify(path), value, isMarker: false });
  };
  // A leaf resolution stores its value at its path, so the same walk applies.
  walk(entry.data.v, []);
  return leaves.filter((leaf) => leaf.path.length > 0 || leaf.isMarker);
}

/** Leaves grouped by path, and by every strict prefix of their path. */
function indexLeaves(leaves: readonly Leaf[]): {
  byPath: Map<string, Leaf[]>;
  under: Map<string, Leaf[]>;
} {
  const byPath = new Map<string, Leaf[]>();
  const under = new Map<string, Leaf[]>();
  const add = (map: Map<string, Leaf[]>, key: string, leaf: Leaf) => {
    const group = map.get(key);
    if (group) group.push(leaf);
    else map.set(key, [leaf]);
  };
  for (const leaf of leaves) {
    add(byPath, leaf.pathKey, leaf);
    for (let length = 0; length < leaf.path.length; length++) {
      add(under, JSON.stringify(leaf.path.slice(0, length)), leaf);
    }
  }
  return { byPath, under };
}

function uniqueEntries(leaves: readonly Leaf[]): EntryRecord[] {
  return [...new Set(leaves.map((leaf) => leaf.entry))];
}

function samePath(left: readonly string[], right: readonly string[]): boolean {
  return left.length === right.length && left.every((part, index) => part === right[index]);
}

function isStrictPrefix(prefix: readonly string[], path: readonly string[]): boolean {
  return prefix.length < path.length && prefix.every((part, index) => part === path[index]);
}

function pathsRelated(left: readonly string[], right: readonly string[]): boolean {
  const length = Math.min(left.length, right.length);
  for (let index = 0; index < length; index++) if (left[index] !== right[index]) return false;
  return true;
}

function valueAtPath(value: JsonValue, path: readonly string[]): JsonValue | undefined {
  let current: JsonValue | undefined = value;
  for (const part of path) {
    if (!isPlainObject(current) || !Object.hasOwn(current, part)) return undefined;
    current = current[part] as JsonValue | undefined;
  }
  return current;
}

/** Deep merge of a map field's live writes: each leaf path is a register. */
function mergeMap(options: {
  key: string;
  members: readonly EntryRecord[];
  resolutions: readonly EntryRecord[];
  supersedes: (later: EntryRecord, earlier: EntryRecord) => boolean;
  disputedHeads: Map<string, string[]>;
  disputeOf: DisputeOf;
}): { value: Record<string, unknown>; attribution: Record<string, unknown> } {
  const { key, members, resolutions, supersedes, disputedHeads, disputeOf } = options;
  const leafResolutions = resolutions.flatMap((resolution) =>
    resolution.data.rp === undefined ? [] : [{ resolution, path: resolution.data.rp }],
  );
  const leaves = members
    .flatMap((member) => leavesOf(member))
    .filter(
      (leaf) =>
        !leafResolutions.some(
          ({ resolution, path }) =>
            pathsRelated(path, leaf.path) && coveredBy(leaf.entry, resolution),
        ),
    );
  // A leaf is replaced by a later write at the same path, above it or below it.
  const index = indexLeaves(leaves);
  // Latest first: in the usual chain of writes the last one replaces the others, so the search
  // stops at once (scanning oldest first made n writes to one path cost O(n^2)).
  const supersededIn = (group: readonly Leaf[] | undefined, leaf: Leaf): boolean =>
    group?.findLast((other) => supersedes(other.entry, leaf.entry)) !== undefined;
  const heads = leaves.filter((leaf) => {
    // At its own path first (the usual replacement), then above it.
    for (let length = leaf.path.length; length >= 0; length--) {
      if (supersededIn(index.byPath.get(JSON.stringify(leaf.path.slice(0, length))), leaf)) {
        return false;
      }
    }
    return !supersededIn(index.under.get(leaf.pathKey), leaf);
  });
  const byPath = new Map<string, Leaf[]>();
  for (const leaf of heads) {
    const pathKey = JSON.stringify(leaf.path);
    const group = byPath.get(pathKey);
    if (group) group.push(leaf);
    else byPath.set(pathKey, [leaf]);
  }
  const paths = [...byPath.keys()].sort((left, right) => {
    const leftPath = JSON.parse(left) as string[];
    const rightPath = JSON.parse(right) as string[];
    return leftPath.length - rightPath.length || compareDistinct(left, right);
  });

  const value: Record<string, unknown> = {};
  const attribution: Record<string, unknown> = {};
  const blocked: string[][] = [];
  for (const pathKey of paths) {
    const path = JSON.parse(pathKey) as string[];
    const group = byPath.get(pathKey) ?? [];
    // Paths come shortest first, so a related blocked path lies above this one.
    if (blocked.some((prefix) => pathsRelated(prefix, path))) {
      continue;
    }
    const dotted = [key, ...path].join(".");
    const scalars = group.filter((leaf) => !leaf.isMarker);
    const below = heads.filter(
      (leaf) => isStrictPrefix(path, leaf.path) || (leaf.isMarker && samePath(leaf.path, path)),
    );
    if (scalars.length > 0 && below.length > 0) {
      const involved = [...new Set([...scalars, ...below].map((leaf) => leaf.entry))];
      disputedHeads.set(
        pathKey,
        involved.map((entry) => entry.id),
      );
      const contenders = involved.map((entry) => ({
        agentId: entry.data.a,
        value: valueAtPath(entry.data.v, path),
        at: entry.data.t,
      }));
      const disputed = disputeOf(dotted, path, "kind-mismatch", contenders, involved);
      setAtPath(value, path, disputed);
      defineOwn(attribution, path.join("."), disputed.toJSON());
      blocked.push(path);
      continue;
    }
    if (scalars.length === 0) {
      setAtPath(value, path, {});
      continue;
    }
    const contenders = scalars.map((leaf) => ({
      agentId: leaf.entry.data.a,
      value: leaf.value,
      at: leaf.entry.data.t,
    }));
    if (new Set(scalars.map((leaf) => canonicalJson(leaf.value))).size > 1) {
      disputedHeads.set(
        pathKey,
        scalars.map((leaf) => leaf.entry.id),
      );
      const disputed = disputeOf(
        dotted,
        path,
        "concurrent-register",
        contenders,
        scalars.map((leaf) => leaf.entry),
      );
      setAtPath(value, path, disputed);
      defineOwn(attribution, path.join("."), disputed.toJSON());
      continue;
    }
    const last = contenders[contenders.length - 1];
    setAtPath(value, path, last?.value);
    defineOwn(attribution, path.join("."), last);
  }
  return { value, attribution };
}

/** Orders strings that are never equal within one sort (escalation ids, path keys). */
export function compareDistinct(left: string, right: string): number {
  return left < right ? -1 : 1;
}

function setAtPath(target: Record<string, unknown>, path: readonly string[], value: unknown): void {
  let current = target;
  for (const part of path.slice(0, -1)) {
    // Own members only: a path through `__proto__` must never reach `Object.prototype`.
    const next = Object.hasOwn(current, part) ? current[part] : undefined;
    if (isPlainObject(next)) current = next;
    else {
      const created: Record<string, unknown> = {};
      defineOwn(current, part, created);
      current = created;
    }
  }
  const last = path[path.length - 1];
  if (last === undefined) return;
  defineOwn(current, last, value);
}

/** One part of an escalation id: `\`, `.`, `/` and `#` escaped with `\` (most names have none). */
function idPart(name: string): string {
  return name.replace(/[\\./#]/g, (character) => `\\${character}`);
}
