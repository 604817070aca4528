import type {
  Item,
  ListNamespacesOperation,
  MatchCondition,
  SearchOperation,
} from "@langchain/langgraph";
import type { SharedState } from "../crdt/shared-state.js";

/**
 * How LangGraph store items live in shared state: the item at (`namespace`, `key`) is the shared-state
 * namespace `langgraph:["a","b","key"]`, one field per top-level property of the item's value. Fields
 * are what merge (lists union, objects deep-merge, scalars escalate), so two nodes writing one item
 * keep both contributions. Type-only imports: this module never loads LangGraph at run time.
 */

const prefix = "langgraph:";

/** A search hit; LangGraph's own `SearchItem` is not re-exported by `@langchain/langgraph`. */
type SearchItem = Item & { score?: number };

/** The shared-state namespace holding the item at (`namespace`, `key`). */
export function itemNamespace(namespace: readonly string[], key: string): string {
  return `${prefix}${JSON.stringify([...namespace, key])}`;
}

/** The (namespace, key) of an item namespace, or undefined for any other shared-state namespace. */
export function parseItemNamespace(name: string): { namespace: string[]; key: string } | undefined {
  if (!name.startsWith(prefix)) return undefined;
  let path: unknown;
  try {
    path = JSON.parse(name.slice(prefix.length));
  } catch {
    return undefined;
  }
  if (!Array.isArray(path) || path.length < 1) return undefined;
  if (!path.every((label): label is string => typeof label === "string")) return undefined;
  const key = path[path.length - 1];
  if (key === undefined) return undefined;
  return { namespace: path.slice(0, -1), key };
}

/** Writes each property of `value` as a field of the item, all applied locally before any await. */
export async function putItem(
  state: Pick<SharedState, "put">,
  namespace: readonly string[],
  key: string,
  value: Record<string, unknown>,
): Promise<void> {
  const name = itemNamespace(namespace, key);
  await Promise.all(
    Object.entries(value).map(([field, fieldValue]) => state.put(name, field, fieldValue)),
  );
}

/** The item at (`namespace`, `key`), or null when nothing was ever written there. */
export function getItem(
  state: SharedState,
  namespace: readonly string[],
  key: string,
  now: () => number,
): Item | null {
  const fields = state.list(itemNamespace(namespace, key));
  if (Object.keys(fields).length === 0) return null;
  return toItem([...namespace], key, fields, now);
}

/** Every item under `op.namespacePrefix` that passes `op.filter` (and `op.query` as a substring). */
export function searchItems(
  state: SharedState,
  op: SearchOperation,
  now: () => number,
): SearchItem[] {
  const matches: SearchItem[] = [];
  for (const name of Object.keys(state.toJSON())) {
    const path = parseItemNamespace(name);
    if (!path || !startsWith(path.namespace, op.namespacePrefix)) continue;
    const fields = state.list(name);
    if (Object.keys(fields).length === 0) continue;
    if (op.filter && !matchesFilter(fields, op.filter)) continue;
    // No embeddings here: a query is a case-insensitive substring of the item's JSON.
    if (op.query && !JSON.stringify(fields).toLowerCase().includes(op.query.toLowerCase())) {
      continue;
    }
    matches.push({ ...toItem(path.namespace, path.key, fields, now), score: undefined });
  }
  matches.sort((a, b) => compareText(itemSortKey(a), itemSortKey(b)));
  const offset = op.offset ?? 0;
  return matches.slice(offset, offset + (op.limit ?? 10));
}

/** The namespaces holding at least one item, filtered, truncated to `maxDepth` and paginated. */
export function listItemNamespaces(state: SharedState, op: ListNamespacesOperation): string[][] {
  const seen = new Map<string, string[]>();
  for (const name of Object.keys(state.toJSON())) {
    const path = parseItemNamespace(name);
    if (!path) continue;
    if (!(op.matchConditions ?? []).every((condition) => matches(condition, path.namespace))) {
      continue;
    }
    const namespace =
      op.maxDepth === undefined ? path.namespace : path.namespace.slice(0, op.maxDepth);
    seen.set(JSON.stringify(namespace), namespace);
  }
  const namespaces = [...seen.values()].sort((a, b) => compareText(a.join("/"), b.join("/")));
  return namespaces.slice(op.offset, op.offset + op.limit);
}

function toItem(
  namespace: string[],
  key: string,
  fields: Record<string, unknown>,
  now: () => number,
): Item {
  // Shared state keeps who wrote what, not per-item timestamps: the read time stands in for both.
  const at = new Date(now());
  return { namespace, key, value: fields, createdAt: at, updatedAt: at };
}

function itemSortKey(item: Item): string {
  return JSON.stringify([...item.namespace, item.key]);
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function startsWith(namespace: readonly string[], namespacePrefix: readonly string[]): boolean {
  return namespacePrefix.every((label, index) => namespace[index] === label);
}

function matches(condition: MatchCondition, namespace: readonly string[]): boolean {
  const { path } = condition;
  if (path.length > namespace.length) return false;
  const offset = condition.matchType === "prefix" ? 0 : namespace.length - path.length;
  return path.every((label, index) => label === "*" || namespace[offset + index] === label);
}

/** LangGraph's filter semantics: equality, or `$eq $ne $gt $gte $lt $lte $in $nin` operators. */
function matchesFilter(fields: Record<string, unknown>, filter: Record<string, unknown>): boolean {
  return Object.entries(filter).every(([field, expected]) => {
    const actual = fields[field];
    if (typeof expected !== "object" || expected === null || Array.isArray(expected)) {
      return actual === expected;
    }
    const operators = Object.entries(expected).filter(([name]) => name.startsWith("$"));
    if (operators.length === 0) return JSON.stringify(actual) === JSON.stringify(expected);
    return operators.every(([name, operand]) => {
      switch (name) {
        case "$eq":
          return actual === operand;
        case "$ne":
          return actual !== operand;
        case "$gt":
          return Number(actual) > Number(operand);
        case "$gte":
          return Number(actual) >= Number(operand);
        case "$lt":
          return Number(actual) < Number(operand);
        case "$lte":
          return Number(actual) <= Number(operand);
        case "$in":
          return Array.isArray(operand) && operand.includes(actual);
        case "$nin":
          return !Array.isArray(operand) || !operand.includes(actual);
        default:
          return false;
      }
    });
  });
}
