import type { Item, ListNamespacesOperation, MatchCondition } from "@langchain/langgraph";
import type { Escalation } from "../crdt/escalation.js";
import type { SharedState } from "../crdt/shared-state.js";
import { resolutionChanges } from "./langgraph-item-diff.js";
import {
  type CellChange,
  type ItemOperation,
  type ItemVector,
  type ItemView,
  materializeItem,
  parseItemOperation,
} from "./langgraph-item-log.js";
import { copyValue } from "./langgraph-value-codec.js";

/**
 * How LangGraph store items live in shared state: the item at (`namespace`, `key`) is the shared-state
 * namespace `langgraph:["a","b","key"]`, whose one field `ops` is a set holding the item's log of
 * operations (see langgraph-item-log.ts). A set only ever grows and merges by union, so every
 * replica ends up with every operation, and the item's value is derived from them the same way
 * everywhere. Type-only imports: this module never loads LangGraph at run time.
 */

const prefix = "langgraph:";

/** The shared-state field holding an item's operations. */
export const operationsField = "ops";

/** A search hit; LangGraph's own `SearchItem` is not re-exported by `@langchain/langgraph`. */
export type SearchItem = Item & { score?: number };

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

/** An operation with the order this replica learnt it in (what a snapshot of a step is cut on). */
export interface IndexedOperation {
  readonly operation: ItemOperation;
  readonly sequence: number;
}

/** Who reads or writes: what it can see of the items, and whom its writes are attributed to. */
export interface Viewpoint {
  readonly agentId: string;
  /** Whether this reader had `operation` in view (everything, for a live reader). */
  sees(operation: IndexedOperation): boolean;
  /** Called with the id of each operation this viewpoint writes. */
  wrote(id: string): void;
}

/**
 * Every item's operations, as this replica holds them, indexed from the shared state's changes:
 * an item is re-read only after its `ops` field changed.
 */
export class ItemIndex {
  readonly #state: SharedState;
  readonly #items = new Map<string, IndexedOperation[]>();
  readonly #known = new Set<string>();
  readonly #dirty = new Set<string>();
  readonly #views = new Map<string, { count: number; view: ItemView }>();
  #sequence = 0;
  readonly #unsubscribe: () => void;

  constructor(state: SharedState) {
    this.#state = state;
    this.#unsubscribe = state.onChange((change) => {
      if (change.key === operationsField && change.namespace.startsWith(prefix)) {
        this.#dirty.add(change.namespace);
      }
    });
    for (const name of state.replica.namespaces()) {
      if (name.startsWith(prefix)) this.#dirty.add(name);
    }
  }

  /** The latest sequence number handed out: a snapshot of everything seen so far. */
  get sequence(): number {
    this.refresh();
    return this.#sequence;
  }

  /** Reads the items whose operations changed; returns their namespaces. */
  refresh(): string[] {
    const changed = [...this.#dirty];
    this.#dirty.clear();
    for (const name of changed) {
      const stored = this.#state.get(name, operationsField);
      if (!Array.isArray(stored)) continue;
      let indexed = this.#items.get(name);
      if (!indexed) {
        indexed = [];
        this.#items.set(name, indexed);
      }
      for (const element of stored) {
        const operation = parseItemOperation(element);
        if (operation) this.#ingest(indexed, operation);
      }
    }
    return changed;
  }

  /**
   * Writes one operation to an item as `viewpoint` sees it (its parents are the item's heads in
   * that view), attributed to `viewpoint.agentId`. Applied locally before it returns; resolves
   * once stored.
   */
  write(
    name: string,
    viewpoint: Viewpoint,
    write: {
      id: string;
      at: number;
      changes: CellChange[];
      resolves?: string;
      vectors?: ItemVector[];
    },
  ): Promise<void> {
    const heads = this.view(name, viewpoint).heads;
    const all = this.#items.get(name) ?? [];
    const depthOf = (id: string) =>
      all.find((entry) => entry.operation.id === id)?.operation.depth ?? 0;
    const operation: ItemOperation = {
      id: write.id,
      agent: viewpoint.agentId,
      at: write.at,
      parents: heads,
      depth: 1 + Math.max(0, ...heads.map(depthOf)),
      changes: write.changes,
      ...(write.resolves === undefined ? {} : { resolves: write.resolves }),
      ...(write.vectors === undefined ? {} : { vectors: write.vectors }),
    };
    viewpoint.wrote(operation.id);
    const state = this.#state;
    return this.#append(name, operation, () =>
      state.actingAs(operation.agent).put(name, operationsField, [operation]),
    );
  }

  /** Every escalation of every item, open or resolved. */
  escalations(): Escalation[] {
    return this.names().flatMap((name) => this.view(name, undefined).escalations);
  }

  /**
   * Settles an item's escalation with `value`, attributed to `by`. Returns false (and writes
   * nothing) when no item has this escalation.
   * @throws InvalidStateValueError when `value` is not JSON.
   */
  async resolve(
    escalationId: string,
    value: unknown,
    options: { by: string; at: number; id: string },
  ): Promise<boolean> {
    for (const name of this.names()) {
      const view = this.view(name, undefined);
      const path = view.escalationPaths.get(escalationId);
      if (path === undefined) continue;
      const changes = resolutionChanges(name, view.cells, path, value);
      await this.write(name, liveViewpoint(options.by), {
        id: options.id,
        at: options.at,
        changes,
        resolves: escalationId,
      });
      return true;
    }
    return false;
  }

  /**
   * Appends an operation this replica writes: `write` stores it (applied locally before it
   * returns), and the index takes it as is instead of re-reading the whole item.
   */
  #append(name: string, operation: ItemOperation, write: () => Promise<void>): Promise<void> {
    const changedBefore = this.#dirty.has(name);
    const written = write();
    if (!changedBefore) this.#dirty.delete(name);
    let indexed = this.#items.get(name);
    if (!indexed) {
      indexed = [];
      this.#items.set(name, indexed);
    }
    this.#ingest(indexed, operation);
    return written;
  }

  #ingest(indexed: IndexedOperation[], operation: ItemOperation): void {
    if (this.#known.has(operation.id)) return;
    this.#known.add(operation.id);
    this.#sequence += 1;
    indexed.push({ operation, sequence: this.#sequence });
  }

  /** Every item namespace, sorted. */
  names(): string[] {
    this.refresh();
    return [...this.#items.keys()].sort();
  }

  /** The item as `viewpoint` sees it (cached for readers that see everything). */
  view(name: string, viewpoint: Viewpoint | undefined): ItemView {
    this.refresh();
    const all = this.#items.get(name) ?? [];
    if (viewpoint === undefined) {
      const cached = this.#views.get(name);
      if (cached && cached.count === all.length) return cached.view;
      const view = materializeItem(
        this.#state.subjectId,
        name,
        all.map((entry) => entry.operation),
      );
      this.#views.set(name, { count: all.length, view });
      return view;
    }
    const visible = all.filter((entry) => viewpoint.sees(entry)).map((entry) => entry.operation);
    return materializeItem(this.#state.subjectId, name, visible);
  }

  /** Stops following the shared state's changes. */
  close(): void {
    this.#unsubscribe();
  }
}

/** The open disputes of the LangGraph store items on `state`, read once (no subscription kept). */
export function openItemEscalations(state: SharedState): Escalation[] {
  const index = new ItemIndex(state);
  try {
    return index.escalations().filter((escalation) => escalation.resolution === undefined);
  } finally {
    index.close();
  }
}

/** A reader that sees every write as soon as it is read, writing as `agentId`. */
export function liveViewpoint(agentId: string): Viewpoint {
  return { agentId, sees: () => true, wrote: () => {} };
}

/**
 * Why LangGraph's `InMemoryStore` would refuse `namespace` in a batch (the `langgraph` root is
 * allowed there), or undefined: the same rules as its `validateNamespace`, kept here so that this
 * module (read by the MCP server too) never loads LangGraph. `SyncedStore` throws LangGraph's own
 * `InvalidNamespaceError`; this filters what another writer (an older version) may have stored.
 */
export function namespaceProblem(namespace: readonly unknown[]): string | undefined {
  if (namespace.length === 0) return "Namespace cannot be empty.";
  for (const label of namespace) {
    if (typeof label !== "string") return `Namespace labels must be strings, got ${typeof label}.`;
    if (label.includes(".")) return `Namespace labels cannot contain periods ('.'): '${label}'.`;
    if (label.includes(":")) return `Namespace labels cannot contain colons (':'): '${label}'.`;
    if (label.includes("\0")) return "Namespace labels cannot contain NUL bytes.";
    if (label === "") return "Namespace labels cannot be empty strings.";
  }
  return undefined;
}

function isValidNamespace(namespace: readonly string[]): boolean {
  return namespaceProblem(namespace) === undefined;
}

/** An item view as LangGraph's `Item`, or null when the item does not exist. */
export function toItem(namespace: string[], key: string, view: ItemView): Item | null {
  if (view.value === undefined) return null;
  return {
    namespace,
    key,
    // `BaseStore` types values as records; a value put whole (a list, a string) reads back as put.
    // A copy: views are cached, and what a caller does with its item must not change them.
    value: copyValue(view.value) as Record<string, unknown>,
    createdAt: new Date(view.createdAt),
    updatedAt: new Date(view.updatedAt),
  };
}

/**
 * Every item under `op.namespacePrefix` that passes `op.filter`, paginated. With `queryVector` (the
 * store has an index and the search a query), items with embeddings come first, best cosine
 * similarity of any of their fields first, then the items without, unscored: as `InMemoryStore`.
 */
export function searchItems(
  index: ItemIndex,
  op: {
    namespacePrefix: string[];
    filter?: Record<string, unknown>;
    limit?: number;
    offset?: number;
  },
  viewpoint: Viewpoint | undefined,
  queryVector?: readonly number[],
): SearchItem[] {
  const scored: Array<{ item: Item; score: number }> = [];
  const unscored: SearchItem[] = [];
  for (const name of index.names()) {
    const path = parseItemNamespace(name);
    if (!path || !startsWith(path.namespace, op.namespacePrefix)) continue;
    if (!isValidNamespace(path.namespace)) continue;
    const view = index.view(name, viewpoint);
    const item = toItem(path.namespace, path.key, view);
    if (!item) continue;
    if (op.filter && !matchesFilter(item.value, op.filter)) continue;
    if (queryVector && view.vectors.length > 0) {
      const score = Math.max(
        ...view.vectors.map((entry) => cosineSimilarity(queryVector, entry.vector)),
      );
      scored.push({ item, score });
    } else {
      unscored.push({ ...item, score: undefined });
    }
  }
  const byKey = (a: Item, b: Item) => compareText(itemSortKey(a), itemSortKey(b));
  unscored.sort(byKey);
  scored.sort((a, b) => b.score - a.score || byKey(a.item, b.item));
  const matches: SearchItem[] = [
    ...scored.map(({ item, score }) => ({ ...item, score })),
    ...unscored,
  ];
  const offset = op.offset ?? 0;
  return matches.slice(offset, offset + (op.limit ?? 10));
}

/** LangGraph's cosine similarity: 0 when either vector is all zeros. */
function cosineSimilarity(left: readonly number[], right: readonly number[]): number {
  let dot = 0;
  let leftSquares = 0;
  let rightSquares = 0;
  for (let position = 0; position < left.length; position += 1) {
    const a = left[position] ?? 0;
    const b = right[position] ?? 0;
    dot += a * b;
    leftSquares += a * a;
    rightSquares += b * b;
  }
  const magnitude = Math.sqrt(leftSquares) * Math.sqrt(rightSquares);
  return magnitude === 0 ? 0 : dot / magnitude;
}

/** The namespaces holding at least one item, filtered, truncated to `maxDepth` and paginated. */
export function listItemNamespaces(
  index: ItemIndex,
  op: ListNamespacesOperation,
  viewpoint: Viewpoint | undefined,
): string[][] {
  const seen = new Map<string, string[]>();
  for (const name of index.names()) {
    const path = parseItemNamespace(name);
    // Only namespaces LangGraph accepts: another writer (an older version) may have stored others.
    if (!path || !isValidNamespace(path.namespace)) continue;
    // Like LangGraph's InMemoryStore, a namespace stays listed once its items are deleted.
    if (index.view(name, viewpoint).heads.length === 0) continue;
    if (!(op.matchConditions ?? []).every((condition) => matches(condition, path.namespace))) {
      continue;
    }
    const namespace =
      op.maxDepth === undefined ? path.namespace : path.namespace.slice(0, op.maxDepth);
    seen.set(JSON.stringify(namespace), namespace);
  }
  const namespaces = [...seen.values()].sort((a, b) => compareText(a.join("/"), b.join("/")));
  const offset = op.offset ?? 0;
  return namespaces.slice(offset, offset + (op.limit ?? namespaces.length));
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
function matchesFilter(value: unknown, filter: Record<string, unknown>): boolean {
  const fields: Record<string, unknown> =
    typeof value === "object" && value !== null ? (value as Record<string, unknown>) : {};
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
