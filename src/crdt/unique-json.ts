import { canonicalJson } from "./json-value.js";

/**
 * `values` with each JSON value once (equal whatever their key order), the first of each kept in
 * place: how a set write stores its elements, and how LangGraph items union concurrent lists.
 */
export function uniqueJson<Value>(values: Iterable<Value>): Value[] {
  const present = new Set<string>();
  const unique: Value[] = [];
  for (const value of values) {
    const canonical = canonicalJson(value);
    if (present.has(canonical)) continue;
    present.add(canonical);
    unique.push(value);
  }
  return unique;
}
