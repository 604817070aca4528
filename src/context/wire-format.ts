/**
 * camelCase <-> snake_case for the Statewave wire, as the official TS SDK does it
 * (contract §10): every key is rewritten recursively, except that the values under
 * `payload`, `metadata` and `provenance` are opaque — at any depth, the key is renamed but
 * its value passes through untouched, so user data is never rewritten.
 */

import { defineOwn } from "../crdt/json-value.js";

/** Keys whose values are user data and never rewritten. */
const opaqueKeys = new Set(["payload", "metadata", "provenance"]);

/** `subjectId` -> `subject_id` (the SDK's `/[A-Z]/ -> _x`). */
export function camelKeyToSnake(key: string): string {
  return key.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
}

/** `subject_id` -> `subjectId` (the SDK's `/_+([a-zA-Z0-9])/ -> X`). */
export function snakeKeyToCamel(key: string): string {
  return key.replace(/_+([a-zA-Z0-9])/g, (_match, letter: string) => letter.toUpperCase());
}

function rewriteKeys(value: unknown, rename: (key: string) => string): unknown {
  if (Array.isArray(value)) return value.map((item) => rewriteKeys(item, rename));
  if (typeof value !== "object" || value === null) return value;
  const result: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value)) {
    // `undefined` means "not set": leave the key out, as JSON.stringify would.
    if (inner === undefined) continue;
    const opaque = opaqueKeys.has(snakeKeyToCamel(key));
    // Not assignment: a "__proto__" key from the wire must stay a key, not become the prototype.
    defineOwn(result, rename(key), opaque ? inner : rewriteKeys(inner, rename));
  }
  return result;
}

/** A camelCase value as the wire wants it: snake_case keys, opaque fields untouched. */
export function toWire(value: unknown): unknown {
  return rewriteKeys(value, camelKeyToSnake);
}

/** A wire value with camelCase keys, opaque fields untouched. */
export function fromWire(value: unknown): unknown {
  return rewriteKeys(value, snakeKeyToCamel);
}
