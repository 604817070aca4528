import type { JsonValue } from "../context/context-store.js";
import { Disputed } from "../crdt/disputed.js";
import { canonicalJson, isPlainObject } from "../crdt/json-value.js";
import { uniqueJson } from "../crdt/unique-json.js";
import {
  type CellChange,
  cellKey,
  cellLabel,
  type ItemView,
  startsWithPath,
} from "./langgraph-item-log.js";
import { encodeValue, typeTag } from "./langgraph-value-codec.js";
import { UnsupportedItemValueError } from "./unsupported-item-value-error.js";

/**
 * The write side of an item's log (langgraph-item-log.ts replays it): the cell changes a `put`,
 * a delete or a resolution appends, as the difference between the item its writer read and the
 * value it writes, so a writer only ever contends for the cells it changed.
 */

/**
 * The cell changes that turn `base` (the item as its writer read it) into `next`. A field left as
 * it was read is no change, so a writer never becomes a contender for fields it did not touch; a
 * `Disputed` written back unchanged (the instance, or its JSON) is no change either. The root cell
 * (the item exists) is always written by a put.
 * `next === undefined` deletes the item: every cell the writer saw is removed.
 * @throws UnsupportedItemValueError when `next` holds a value with no encoding, before anything is written.
 */
export function diffItem(namespace: string, base: ItemView["cells"], next: unknown): CellChange[] {
  const nextCells: NextCells = new Map();
  if (isPlainObject(next)) flatten(next, [], nextCells, base, namespace);
  else if (next !== undefined) {
    nextCells.set(cellKey([]), { path: [], value: encodeValue(next, { namespace, field: "" }) });
  }
  // A put always writes the item's root cell, even when it changed nothing else: so a put and a
  // delete that did not see each other dispute the item instead of one silently undoing the other.
  return changesBetween(base, nextCells, next === undefined ? undefined : cellKey([]));
}

/**
 * The changes a resolution writes: the cell at `path` (the disputed one) set to `value`, every cell
 * below it replaced by `value`'s own (an object resolution keeps its keys, a scalar one drops them).
 * @throws UnsupportedItemValueError when `value` has no encoding.
 */
export function resolutionChanges(
  namespace: string,
  base: ItemView["cells"],
  path: string[],
  value: unknown,
): CellChange[] {
  const below = new Map([...base].filter(([, cell]) => startsWithPath(cell.path, path)));
  const nextCells: NextCells = new Map();
  if (isPlainObject(value)) flatten(value, path, nextCells, below, namespace);
  else
    nextCells.set(cellKey(path), {
      path,
      value: encodeValue(value, { namespace, field: cellLabel(path) }),
    });
  return changesBetween(below, nextCells, cellKey(path));
}

type NextCells = Map<string, { path: string[]; value: JsonValue } | { keep: string[] }>;

/** @param forced a cell written even when unchanged (the one a resolution settles). */
function changesBetween(
  base: ItemView["cells"],
  nextCells: NextCells,
  forced: string | undefined,
): CellChange[] {
  const changes: CellChange[] = [];
  const kept: string[][] = [];
  for (const [key, cell] of nextCells) {
    if ("keep" in cell) {
      kept.push(cell.keep);
      continue;
    }
    const before = base.get(key)?.value;
    const unchanged =
      key !== forced &&
      before !== undefined &&
      !(before instanceof Disputed) &&
      canonicalJson(before) === canonicalJson(cell.value);
    if (unchanged) continue;
    if (Array.isArray(cell.value)) {
      const previous = Array.isArray(before) ? (before as JsonValue[]) : [];
      const had = new Set(previous.map(canonicalJson));
      const has = new Set(cell.value.map(canonicalJson));
      changes.push({
        p: cell.path,
        list: cell.value,
        add: uniqueJson(cell.value.filter((element) => !had.has(canonicalJson(element)))),
        remove: uniqueJson(previous.filter((element) => !has.has(canonicalJson(element)))),
      });
    } else {
      changes.push({ p: cell.path, set: cell.value });
    }
  }
  for (const [key, cell] of base) {
    if (nextCells.has(key)) continue;
    // What lies under a dispute written back as read is left as it is too.
    if (kept.some((prefix) => startsWithPath(cell.path, prefix))) continue;
    changes.push({ p: cell.path, remove: true });
  }
  return changes;
}

/**
 * Checks that `value` can be put (what `encodeValue` encodes, where a `Disputed` read back counts),
 * so a batch can be refused whole before anything of it is written.
 * @throws UnsupportedItemValueError naming the item, the field and the value's type.
 */
export function validateItemValue(namespace: string, value: unknown): void {
  if (isPlainObject(value)) flatten(value, [], new Map(), "any", namespace);
  else encodeValue(value, { namespace, field: "" });
}

/** True for a `Disputed` or its JSON (`{ disputed, contenders }`), as a round trip leaves it. */
function disputedIdOf(value: unknown): string | undefined {
  if (value instanceof Disputed) return value.escalationId;
  if (
    isPlainObject(value) &&
    typeof value.disputed === "string" &&
    Array.isArray(value.contenders) &&
    Object.keys(value).length === 2
  ) {
    return value.disputed;
  }
  return undefined;
}

function flatten(
  value: Record<string, unknown>,
  path: string[],
  into: NextCells,
  base: ItemView["cells"] | "any",
  namespace: string,
): void {
  if (Object.hasOwn(value, typeTag)) {
    throw new UnsupportedItemValueError({
      namespace,
      field: cellLabel(path),
      type: `an object with a "${typeTag}" key`,
    });
  }
  const names = Object.keys(value);
  // Every object is a cell of its own (a `{}` marker): one writer making a field an object while
  // another makes it a scalar is then a dispute of that cell, not two cells that cannot both stand.
  into.set(cellKey(path), { path, value: {} });
  for (const name of names) {
    const child = value[name];
    const childPath = [...path, name];
    const key = cellKey(childPath);
    const disputed = disputedIdOf(child);
    const before = base === "any" ? undefined : base.get(key)?.value;
    const kept =
      disputed !== undefined &&
      (base === "any" || (before instanceof Disputed && before.escalationId === disputed));
    if (kept) {
      into.set(key, { keep: childPath });
      continue;
    }
    if (child === undefined) continue;
    if (isPlainObject(child)) {
      flatten(child, childPath, into, base, namespace);
      continue;
    }
    into.set(key, {
      path: childPath,
      value: encodeValue(child, { namespace, field: cellLabel(childPath) }),
    });
  }
}
