import type { JsonValue } from "../context/context-store.js";
import { defineOwn, isPlainObject } from "../crdt/json-value.js";
import { UnsupportedItemValueError } from "./unsupported-item-value-error.js";

/**
 * How the values LangGraph's `InMemoryStore` keeps (it holds them by reference) travel through
 * shared state, which holds JSON only: `Date`, `Map`, `Set`, `RegExp`, `bigint`, `NaN`, `±Infinity`,
 * `-0` and `undefined` array elements become tagged JSON objects, read back as what was put. A tagged
 * value is one cell (it merges as a whole, like a scalar). Anything else that is not JSON (class
 * instances, functions, symbols, typed arrays) is refused with the item, field and type named.
 */

/** The key marking a tagged value; a plain object of the user's holding it is refused. */
export const typeTag = "$type@shared-ctx";

/** What a non-JSON value's encoding may describe. */
type Tagged =
  | { [typeTag]: "Date"; value: string | null }
  | { [typeTag]: "number"; value: "NaN" | "Infinity" | "-Infinity" | "-0" }
  | { [typeTag]: "bigint"; value: string }
  | { [typeTag]: "undefined" }
  | { [typeTag]: "Map"; value: JsonValue[] }
  | { [typeTag]: "Set"; value: JsonValue[] }
  | { [typeTag]: "RegExp"; value: string; flags: string };

/**
 * The JSON form of `value`, for a leaf (not a plain object walked into cell by cell).
 * @param where the item and field, for the error.
 * @throws UnsupportedItemValueError for anything without an encoding.
 */
export function encodeValue(
  value: unknown,
  where: { namespace: string; field: string },
): JsonValue {
  if (value === null || typeof value === "string" || typeof value === "boolean") return value;
  if (typeof value === "number") {
    if (Number.isNaN(value)) return tagged({ [typeTag]: "number", value: "NaN" });
    if (value === Number.POSITIVE_INFINITY) {
      return tagged({ [typeTag]: "number", value: "Infinity" });
    }
    if (value === Number.NEGATIVE_INFINITY) {
      return tagged({ [typeTag]: "number", value: "-Infinity" });
    }
    if (Object.is(value, -0)) return tagged({ [typeTag]: "number", value: "-0" });
    return value;
  }
  if (typeof value === "bigint") return tagged({ [typeTag]: "bigint", value: value.toString() });
  if (value === undefined) return tagged({ [typeTag]: "undefined" });
  if (Array.isArray(value)) return value.map((element) => encodeValue(element, where));
  if (value instanceof Date) {
    const time = value.getTime();
    return tagged({
      [typeTag]: "Date",
      value: Number.isNaN(time) ? null : value.toISOString(),
    });
  }
  if (value instanceof Map) {
    return tagged({
      [typeTag]: "Map",
      value: [...value].map(([key, inner]) => [encodeValue(key, where), encodeValue(inner, where)]),
    });
  }
  if (value instanceof Set) {
    return tagged({
      [typeTag]: "Set",
      value: [...value].map((inner) => encodeValue(inner, where)),
    });
  }
  if (value instanceof RegExp) {
    return tagged({ [typeTag]: "RegExp", value: value.source, flags: value.flags });
  }
  if (isPlainObject(value)) {
    if (Object.hasOwn(value, typeTag)) {
      throw new UnsupportedItemValueError({ ...where, type: `an object with a "${typeTag}" key` });
    }
    const encoded: Record<string, JsonValue> = {};
    for (const [name, inner] of Object.entries(value)) {
      // As in JSON (and as toEqual reads it), an undefined field is a field left out.
      if (inner === undefined) continue;
      defineOwn(encoded, name, encodeValue(inner, { ...where, field: join(where.field, name) }));
    }
    return encoded;
  }
  throw new UnsupportedItemValueError({ ...where, type: describeType(value) });
}

/** The value `encodeValue` encoded (JSON passes through; fresh objects either way). */
export function decodeValue(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(decodeValue);
  if (!isPlainObject(value)) return value;
  const tag = value[typeTag];
  if (typeof tag === "string") return decodeTagged(value);
  const decoded: Record<string, unknown> = {};
  for (const [name, inner] of Object.entries(value)) defineOwn(decoded, name, decodeValue(inner));
  return decoded;
}

function decodeTagged(value: Record<string, unknown>): unknown {
  const inner = value.value;
  switch (value[typeTag]) {
    case "Date":
      return new Date(typeof inner === "string" ? inner : Number.NaN);
    case "number":
      return inner === "-0" ? -0 : Number(inner);
    case "bigint":
      return typeof inner === "string" ? BigInt(inner) : undefined;
    case "undefined":
      return undefined;
    case "Map":
      return new Map(
        (Array.isArray(inner) ? inner : []).map((entry): [unknown, unknown] => {
          const pair = Array.isArray(entry) ? entry : [];
          return [decodeValue(pair[0]), decodeValue(pair[1])];
        }),
      );
    case "Set":
      return new Set((Array.isArray(inner) ? inner : []).map(decodeValue));
    case "RegExp":
      return new RegExp(String(inner), typeof value.flags === "string" ? value.flags : "");
    default:
      // A tag a newer version wrote: shown as stored rather than guessed at.
      return value;
  }
}

function tagged(value: Tagged): JsonValue {
  return value as unknown as JsonValue;
}

function join(field: string, name: string): string {
  return field === "" ? name : `${field}.${name}`;
}

/** How a refused value is named: its class, or its `typeof`. */
function describeType(value: unknown): string {
  if (typeof value === "function") return "a function";
  if (typeof value === "symbol") return "a symbol";
  if (typeof value === "object" && value !== null) {
    const name = Object.getPrototypeOf(value)?.constructor?.name;
    return typeof name === "string" && name !== "" ? `a ${name} instance` : "an object";
  }
  return `a ${typeof value}`;
}

/**
 * A deep copy of a decoded value, so a caller mutating what it read changes nothing cached.
 * Instances other than the encoded kinds (a `Disputed`) are immutable and shared as they are.
 */
export function copyValue(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(copyValue);
  if (value instanceof Date) return new Date(value.getTime());
  if (value instanceof Map) {
    return new Map([...value].map(([key, inner]) => [copyValue(key), copyValue(inner)]));
  }
  if (value instanceof Set) return new Set([...value].map(copyValue));
  if (value instanceof RegExp) return new RegExp(value.source, value.flags);
  if (!isPlainObject(value)) return value;
  const copy: Record<string, unknown> = {};
  for (const [name, inner] of Object.entries(value)) defineOwn(copy, name, copyValue(inner));
  return copy;
}
