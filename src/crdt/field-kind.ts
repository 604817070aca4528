import { isPlainObject } from "./json-value.js";

/**
 * How a field merges when replicas write it concurrently.
 *
 * - `set`: a union of elements, in the order they were first added, without duplicates.
 * - `text`: append-only text; concurrent appends are all kept, each as its own line.
 * - `map`: a deep merge of objects; each leaf behaves as a `register`.
 * - `register`: one value; concurrent different values are escalated, never dropped.
 * - `counter`: a sum of increments (`put` adds the number it is given).
 */
export type FieldKind = "set" | "text" | "map" | "register" | "counter";

/** The declared kinds of the fields of one namespace. Undeclared fields are inferred. */
export type NamespaceSchema = Record<string, FieldKind>;

/** Every field kind, for validation and exhaustive tests. */
export const fieldKinds: readonly FieldKind[] = ["set", "text", "map", "register", "counter"];

/**
 * Key names whose string values are append-only text, as AgentSync infers them:
 * the key (or its last `_`/`-`/`.` part) is notes, log, findings, text, journal or comments.
 */
const textKeyPattern = /(^|[_.-])(notes?|logs?|findings?|text|journal|comments?)$/i;

/**
 * The kind of an undeclared field, inferred from the first value written and the key, as
 * AgentSync does: an array is a `set`, a plain object a `map`, a string under a text-like key
 * (`notes`, `log`, `findings`, `text`, ...) is `text`, anything else a `register`.
 * Counters are never inferred: declare them in the schema.
 */
export function inferFieldKind(key: string, value: unknown): FieldKind {
  if (Array.isArray(value)) return "set";
  if (isPlainObject(value)) return "map";
  if (typeof value === "string" && textKeyPattern.test(key)) return "text";
  return "register";
}

/** Whether `value` can be written to a field declared as `kind`. */
export function valueFitsKind(kind: FieldKind, value: unknown): boolean {
  switch (kind) {
    case "set":
      return Array.isArray(value);
    case "text":
      return typeof value === "string";
    case "map":
      return isPlainObject(value);
    case "counter":
      // Number.isFinite is false for anything but a number, without coercing.
      return Number.isFinite(value);
    case "register":
      return true;
  }
}
