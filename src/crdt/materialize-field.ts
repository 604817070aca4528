import { compareDistinct } from "./collections.js";
import type { Escalation } from "./escalation.js";
import {
  coveredBy,
  disputesOf,
  type RecordEscalation,
  recordKindMismatches,
  recordLeafDisputes,
  recordRegisterDisputes,
} from "./field-disputes.js";
import type { FieldKind } from "./field-kind.js";
import { attributeLazily } from "./field-values.js";
import { pathsRelated } from "./map-leaves.js";
import { mergeLive } from "./merge-live.js";
import { quietKind, quietMap, quietView } from "./quiet-field.js";
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

/** What `materializeField` derives a field from. */
export interface FieldInput {
  subjectId: string;
  namespace: string;
  key: string;
  /** In `compareEntries` order. */
  entries: readonly EntryRecord[];
  before: HappenedBefore;
  /** Tests only: skip the one-pass paths for fields that cannot hold a dispute. */
  general?: boolean;
}

/**
 * A field's entries as the escalation steps read them, and the escalations they record: the live
 * entries, the resolutions, each generation's members, the causal tests and the recorder.
 */
export interface FieldContext {
  key: string;
  entries: readonly EntryRecord[];
  escalations: Map<string, Escalation>;
  announcers: Map<string, string>;
  disputedHeads: Map<string, string[]>;
  escalationPaths: Map<string, readonly string[] | undefined>;
  supersedes: (later: EntryRecord, earlier: EntryRecord) => boolean;
  concurrent: (left: EntryRecord, right: EntryRecord) => boolean;
  resolutions: readonly EntryRecord[];
  fieldResolutions: readonly EntryRecord[];
  leafResolutionsFor: (path: readonly string[]) => EntryRecord[];
  live: readonly EntryRecord[];
  generation: number;
  byGeneration: Map<number, EntryRecord[]>;
  written: Set<number>;
  record: RecordEscalation;
  idBase: (path: readonly string[] | undefined) => string;
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
export function materializeField(input: FieldInput): FieldView {
  if (!input.general) {
    const quiet = quietKind(input.entries);
    if (quiet) return quietView(quiet, input.entries);
    const map = quietMap(input.entries);
    if (map) return map;
  }
  const field = fieldContext(input);
  recordKindMismatches(field);
  // Concurrent different values of the field as a register.
  recordRegisterDisputes({
    cell: field.entries
      .filter((entry) => entry.data.f === "register")
      .map((entry) => ({ entry, value: entry.data.v })),
    idPrefix: field.idBase(undefined),
    cellKey: field.key,
    path: undefined,
    concurrent: field.concurrent,
    candidates: field.fieldResolutions,
    record: field.record,
  });
  recordLeafDisputes(field);
  const merged = mergeLive(field, disputesOf(field));
  const view: FieldView = {
    value: merged.value,
    kind: merged.kind,
    attribution: merged.attribution,
    escalations: [...field.escalations.values()].sort((left, right) =>
      compareDistinct(left.id, right.id),
    ),
    announcers: field.announcers,
    disputedHeads: field.disputedHeads,
    generation: field.generation,
    escalationPaths: field.escalationPaths,
  };
  if (merged.setMembers) attributeLazily(view, merged.setMembers);
  return view;
}

/**
 * The field's causal tests, resolutions, live entries and generations, and the recorder that
 * keeps each escalation with its resolution (if any) and the peer that announces it.
 */
function fieldContext(input: FieldInput): FieldContext {
  const { subjectId, namespace, key, entries, before } = input;
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

  const { generation, byGeneration, written } = generationsOf(entries);

  const record: RecordEscalation = (id, cellKey, path, reason, members, contenders, candidates) => {
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

  return {
    key,
    entries,
    escalations,
    announcers,
    disputedHeads,
    escalationPaths,
    supersedes,
    concurrent,
    resolutions,
    fieldResolutions,
    leafResolutionsFor,
    live,
    generation,
    byGeneration,
    written,
    record,
    idBase,
  };
}

/**
 * One pass: the field's generation, and each generation's members (its writes plus the
 * resolutions that opened it), in entry order; `written` holds the generations a write is in.
 */
function generationsOf(entries: readonly EntryRecord[]): {
  generation: number;
  byGeneration: Map<number, EntryRecord[]>;
  written: Set<number>;
} {
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
  return { generation, byGeneration, written };
}

/** One part of an escalation id: `\`, `.`, `/` and `#` escaped with `\` (most names have none). */
function idPart(name: string): string {
  return name.replace(/[\\./#]/g, (character) => `\\${character}`);
}
