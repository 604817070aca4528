import type { JsonValue } from "../context/context-store.js";
import { defineOwn, isPlainObject } from "./json-value.js";
import type { EntryRecord } from "./state-entry.js";

// A map field's writes as leaves: each path to a scalar (or to an empty object, a marker) is a
// register of its own, so the merge and the escalations work path by path.

/** One path of a map write and what it holds there. */
export interface Leaf {
  readonly entry: EntryRecord;
  readonly path: readonly string[];
  /** `path` as JSON, the key leaves are grouped by. */
  readonly pathKey: string;
  /** `undefined` for an object marker (an empty or nested object written at this path). */
  readonly value: JsonValue | undefined;
  readonly isMarker: boolean;
}

/** The leaves of one map write (a leaf resolution's value stands at its path). */
export function leavesOf(entry: EntryRecord): Leaf[] {
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
export function indexLeaves(leaves: readonly Leaf[]): {
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

/** The writes the leaves come from, each once. */
export function uniqueEntries(leaves: readonly Leaf[]): EntryRecord[] {
  return [...new Set(leaves.map((leaf) => leaf.entry))];
}

/** Whether two paths are equal. */
export function samePath(left: readonly string[], right: readonly string[]): boolean {
  return left.length === right.length && left.every((part, index) => part === right[index]);
}

/** Whether `prefix` lies strictly above `path`. */
export function isStrictPrefix(prefix: readonly string[], path: readonly string[]): boolean {
  return prefix.length < path.length && prefix.every((part, index) => part === path[index]);
}

/** Whether one path lies on the other (equal, above or below). */
export function pathsRelated(left: readonly string[], right: readonly string[]): boolean {
  const length = Math.min(left.length, right.length);
  for (let index = 0; index < length; index++) if (left[index] !== right[index]) return false;
  return true;
}

/** The value at `path` inside `value`, if there is one (own members only). */
export function valueAtPath(value: JsonValue, path: readonly string[]): JsonValue | undefined {
  let current: JsonValue | undefined = value;
  for (const part of path) {
    if (!isPlainObject(current) || !Object.hasOwn(current, part)) return undefined;
    current = current[part] as JsonValue | undefined;
  }
  return current;
}

/** Sets `value` at `path` inside `target`, creating the objects on the way. */
export function setAtPath(
  target: Record<string, unknown>,
  path: readonly string[],
  value: unknown,
): void {
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
