import type { JsonValue } from "../context/context-store.js";
import type { Contender } from "./disputed.js";
import type { FieldKind } from "./field-kind.js";
import { canonicalJson, defineOwn, isPlainObject } from "./json-value.js";
import type { Attributed, FieldView } from "./materialize-field.js";
import type { EntryRecord } from "./state-entry.js";

// The values of the mergeable kinds (set union, text appends, counter sums) and who wrote what,
// and each kind's plain value for showing a kind mismatch's contenders.

/** The value of a set, text or counter field's live writes, and who wrote what. */
export function mergeKind(
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
export function attributeLazily(view: FieldView, members: readonly EntryRecord[]): void {
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

/** The elements a set write adds (a lone value stands for itself). */
export function elementsOf(entry: EntryRecord): JsonValue[] {
  return Array.isArray(entry.data.v) ? entry.data.v : [entry.data.v];
}

/** A set's elements in the order they were first added, without duplicates. */
export function mergeSet(members: readonly EntryRecord[]): {
  value: JsonValue[];
  elements: Set<string>;
} {
  const value: JsonValue[] = [];
  const elements = forEachFirstAdded(members, (element) => value.push(element));
  return { value, elements };
}

/** Who first added each element of a set (rarely read: built apart from the value). */
function attributeSet(members: readonly EntryRecord[]): Attributed[] {
  const attribution: Attributed[] = [];
  forEachFirstAdded(members, (element, member) =>
    attribution.push({ agentId: member.data.a, value: element, at: member.data.t }),
  );
  return attribution;
}

/**
 * Calls `visit` once per element of a set's writes, the first time a write adds it (in write
 * order); returns the canonical JSON of every element.
 */
function forEachFirstAdded(
  members: readonly EntryRecord[],
  visit: (element: JsonValue, member: EntryRecord) => void,
): Set<string> {
  const seen = new Set<string>();
  for (const member of members) {
    for (const element of elementsOf(member)) {
      const canonical = canonicalJson(element);
      if (seen.has(canonical)) continue;
      seen.add(canonical);
      visit(element, member);
    }
  }
  return seen;
}

/** A kind's value without disputes, for showing a kind mismatch's contenders. */
export function plainValueOf(kind: FieldKind, members: readonly EntryRecord[]): unknown {
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

/** `source` merged into `target`, object by object (own members only). */
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

/** A register write as a contender. */
export function contenderOf(entry: EntryRecord): Contender {
  return { agentId: entry.data.a, value: entry.data.v, at: entry.data.t };
}

/** One contender per kind: what that kind's writes add up to, credited to its first writer. */
export function kindContenders(byKind: Map<FieldKind, EntryRecord[]>): Contender[] {
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
