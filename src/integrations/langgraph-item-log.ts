import type { JsonValue } from "../context/context-store.js";
import { type Contender, Disputed } from "../crdt/disputed.js";
import type { Escalation, EscalationReason } from "../crdt/escalation.js";
import { canonicalJson, defineOwn, isPlainObject } from "../crdt/json-value.js";
import { uniqueJson } from "../crdt/unique-json.js";
import { decodeValue } from "./langgraph-value-codec.js";

/**
 * How a LangGraph store item merges: every `put`, `delete` and resolution of an item is one
 * operation appended to the item's log, carrying the item's heads its writer had seen (its
 * parents) and only the cells it changed. An item's value is a pure function of its log, so every
 * replica holding the same operations reads the same item.
 *
 * Cells are the leaves of the item's value: scalars, lists and empty objects (`{}` markers, the
 * item itself being the root marker). A `put` replaces the item as its writer saw it: cells it
 * dropped are removed, lists it changed record what was added and removed. Writes concurrent with
 * each other (neither writer had seen the other) merge per cell: lists merge add-wins (an element
 * any of them still holds stays), different cells of one object both stay, and a cell set (or
 * removed) to different values is disputed: the item reads back a `Disputed` there, and an
 * escalation names every contender until someone resolves it. Values that are not JSON travel
 * encoded (see langgraph-value-codec.ts); cells hold the encoded form, the view the decoded one.
 */

/** One cell change of an operation: `p` is the cell's path in the item's value. */
export type CellChange =
  | { p: string[]; set: JsonValue }
  | { p: string[]; list: JsonValue[]; add: JsonValue[]; remove: JsonValue[] }
  | { p: string[]; remove: true };

/** One operation of an item's log, as stored (an element of the item's `ops` set field). */
export interface ItemOperation {
  /** Unique; also the tie-break of the order concurrent operations replay in. */
  id: string;
  /** Who wrote it (a LangGraph node, or the store's agent id). */
  agent: string;
  /** The writer's clock, ms since the epoch: the item's `createdAt`/`updatedAt` come from here. */
  at: number;
  /** The item's heads as the writer saw them: everything it had seen of the item. */
  parents: string[];
  /** One more than the deepest parent, so (depth, id) is an order that respects causality. */
  depth: number;
  /** Only the cells the writer changed; empty for a put that changed nothing. */
  changes: CellChange[];
  /** A resolution: the escalation it settles (its one change is the chosen value). */
  resolves?: string;
  /**
   * The embeddings of the put's indexed fields (when the writing store has an `index`): they
   * replace the item's earlier ones, as a put replaces its value. Absent: no vectors.
   */
  vectors?: ItemVector[];
}

/** One embedded field of an item: LangGraph's field path (`text`, `texts.1`, `$`) and its vector. */
export interface ItemVector {
  field: string;
  vector: number[];
}

/** A contender of an item dispute; `removed` when that side deleted the cell (or the item). */
export interface ItemContender extends Contender {
  removed?: true;
}

/** An item as one viewpoint reads it. */
export interface ItemView {
  /**
   * Undefined when the item does not exist (never written, or deleted). Usually an object; any
   * other value put whole (a list, a string, a `Map`) reads back as put.
   */
  value: unknown;
  /** Each cell's current value as stored (encoded; a `Disputed` when disputed), keyed by `cellKey(path)`. */
  cells: Map<string, { path: string[]; value: unknown }>;
  /** Every escalation of the item, open or resolved, in id order. */
  escalations: Escalation[];
  /** Which cell each escalation is about. */
  escalationPaths: Map<string, string[]>;
  /** The operations no other visible operation follows: a new write's parents. */
  heads: string[];
  createdAt: number;
  updatedAt: number;
  /** The embeddings of the item's value, from the last put (none after a delete). */
  vectors: ItemVector[];
}

/** The key a cell is indexed by. */
export function cellKey(path: readonly string[]): string {
  return JSON.stringify(path);
}

/** How a change's cell is named in an escalation: the dotted path, `""` for the item itself. */
export function cellLabel(path: readonly string[]): string {
  return path.join(".");
}

interface CellEvent {
  operation: ItemOperation;
  change: CellChange;
}

interface CellState {
  path: string[];
  value: JsonValue | undefined;
  heads: CellEvent[];
  generation: number;
  open: Escalation | undefined;
}

/**
 * Replays the operations (already filtered to what the reader can see) into the item's value.
 * @param namespace the shared-state namespace of the item, which escalation ids start with.
 */
export function materializeItem(
  subjectId: string,
  namespace: string,
  operations: readonly ItemOperation[],
): ItemView {
  const byId = new Map(operations.map((operation) => [operation.id, operation]));
  const ordered = [...operations].sort(
    (left, right) => left.depth - right.depth || compareText(left.id, right.id),
  );
  const replay: Replay = {
    subjectId,
    namespace,
    isAncestor: ancestry(byId),
    escalations: new Map(),
    escalationPaths: new Map(),
  };
  const { cells, createdAt, updatedAt, vectors } = replayCells(ordered, replay);
  const { view, root, whole } = valueOfCells(cells);
  const referenced = new Set(operations.flatMap((operation) => operation.parents));
  return {
    value: whole ? whole.value : root,
    cells: view,
    escalations: [...replay.escalations.values()]
      .map((escalation) => structuredClone(escalation))
      .sort((left, right) => compareText(left.id, right.id)),
    escalationPaths: replay.escalationPaths,
    heads: ordered.filter((operation) => !referenced.has(operation.id)).map((op) => op.id),
    createdAt: createdAt || updatedAt,
    updatedAt,
    vectors: root === undefined && whole === undefined ? [] : vectors,
  };
}

/** What a replay knows beside the cells: the item, causality, and the disputes it raised. */
interface Replay {
  readonly subjectId: string;
  readonly namespace: string;
  readonly isAncestor: (ancestor: ItemOperation, operation: ItemOperation) => boolean;
  readonly escalations: Map<string, Escalation>;
  readonly escalationPaths: Map<string, string[]>;
}

/** Every operation's changes applied to its cells, in causal order, with the item's times. */
function replayCells(ordered: readonly ItemOperation[], replay: Replay) {
  const cells = new Map<string, CellState>();
  let createdAt = 0;
  let updatedAt = 0;
  let vectors: ItemVector[] = [];
  for (const operation of ordered) {
    updatedAt = Math.max(updatedAt, operation.at);
    // A resolution settles a cell; the item's embeddings stay those of the last put or delete.
    if (operation.resolves === undefined) vectors = operation.vectors ?? [];
    for (const change of operation.changes) {
      const key = cellKey(change.p);
      let cell = cells.get(key);
      if (!cell) {
        cell = { path: change.p, value: undefined, heads: [], generation: 0, open: undefined };
        cells.set(key, cell);
      }
      const existed = cell.value !== undefined;
      applyChange(cell, { operation, change }, replay);
      // The write that made the item exist (again) is its creation.
      if (change.p.length === 0 && !existed && cell.value !== undefined) createdAt = operation.at;
    }
  }
  return { cells, createdAt, updatedAt, vectors };
}

/**
 * One change to one cell: it settles an open dispute (a resolution), joins one, replaces what it
 * saw, merges concurrent list edits, or raises a dispute between concurrent writes.
 */
function applyChange(cell: CellState, event: CellEvent, replay: Replay): void {
  const { isAncestor, subjectId, namespace } = replay;
  const { operation } = event;
  const concurrentHeads = cell.heads.filter((head) => !isAncestor(head.operation, operation));
  const written = writtenValue(event.change);
  const open = cell.open;
  // A resolution settles its dispute and, as it replaces everything below it, any dispute there.
  if (open && operation.resolves !== undefined && concurrentHeads.length === 0) {
    open.resolution = { value: written ?? null, by: operation.agent, at: operation.at };
    cell.open = undefined;
    cell.generation += 1;
    cell.value = written;
    cell.heads = [event];
    return;
  }
  if (open) {
    // A write into an open dispute joins it: it replaces its own writer's earlier side only.
    cell.heads = [
      ...cell.heads.filter(
        (head) =>
          !(head.operation.agent === operation.agent && isAncestor(head.operation, operation)),
      ),
      event,
    ];
    open.contenders = cell.heads.map(contenderOf);
    open.raisedAt = Math.max(open.raisedAt, operation.at);
    return;
  }
  if (concurrentHeads.length === 0) {
    cell.value = written;
    cell.heads = [event];
    return;
  }
  cell.heads = [...concurrentHeads, event];
  const change = event.change;
  if (
    "list" in change &&
    Array.isArray(cell.value) &&
    concurrentHeads.every((head) => "list" in head.change)
  ) {
    cell.value = unionOfLists(cell.heads);
    return;
  }
  if (canonicalJson(written) === canonicalJson(cell.value) && written !== undefined) return;
  if (written === undefined && cell.value === undefined) return;
  const reason: EscalationReason =
    kindOf(written) === kindOf(cell.value) ? "concurrent-register" : "kind-mismatch";
  const label = cellLabel(cell.path);
  const escalation: Escalation = {
    id: `${namespace}/${label}#${cell.generation}`,
    subjectId,
    namespace,
    key: label,
    reason,
    contenders: cell.heads.map(contenderOf),
    raisedAt: Math.max(...cell.heads.map((head) => head.operation.at)),
  };
  cell.open = escalation;
  replay.escalations.set(escalation.id, escalation);
  replay.escalationPaths.set(escalation.id, cell.path);
}

/** The item's value from its cells, and each cell's value as the reader sees it. */
function valueOfCells(cells: ReadonlyMap<string, CellState>) {
  // The value: every present cell in place; an open dispute reads as a `Disputed`.
  const view = new Map<string, { path: string[]; value: unknown }>();
  let root: Record<string, unknown> | undefined;
  const sortedCells = [...cells.values()].sort(
    (left, right) => left.path.length - right.path.length,
  );
  let whole: { value: unknown } | undefined;
  for (const cell of sortedCells) {
    const value: unknown = cell.open
      ? new Disputed(
          cell.open.id,
          cell.open.contenders.map((contender) => ({
            ...contender,
            value: decodeValue(contender.value),
          })),
        )
      : cloneJson(cell.value);
    if (value === undefined) continue;
    // A value put whole that is not an object (a list, a string, a Map) is the root cell itself.
    if (cell.path.length === 0 && !cell.open && !isEmptyObject(value)) {
      whole = { value: decodeValue(value) };
      view.set(cellKey(cell.path), { path: cell.path, value });
      continue;
    }
    root ??= {};
    // The root cell only says the item exists (a dispute there, e.g. a delete concurrent with a
    // re-creation, is listed in the escalations): its value is the item's other cells.
    // A cell under a disputed one is not shown but still counted: resolving the dispute, or
    // removing the field, must remove it too.
    if (cell.path.length > 0) {
      place(root, cell.path, value instanceof Disputed ? value : decodeValue(value));
    }
    view.set(cellKey(cell.path), { path: cell.path, value });
  }

  return { view, root, whole };
}

function isEmptyObject(value: unknown): boolean {
  return isPlainObject(value) && Object.keys(value).length === 0;
}

function writtenValue(change: CellChange): JsonValue | undefined {
  if ("set" in change) return change.set;
  if ("list" in change) return change.list;
  return undefined;
}

/** One side of a dispute; an object side shows the whole object its writer wrote there. */
function contenderOf(event: CellEvent): ItemContender {
  const { operation, change } = event;
  const value = writtenValue(change);
  if (value === undefined) {
    return { agentId: operation.agent, value: null, at: operation.at, removed: true };
  }
  if (!isPlainObject(value) || Object.keys(value).length > 0) {
    return { agentId: operation.agent, value: cloneJson(value), at: operation.at };
  }
  const subtree: Record<string, unknown> = {};
  const depth = change.p.length;
  const below = operation.changes
    .filter((other) => other.p.length > depth && startsWithPath(other.p, change.p))
    .sort((left, right) => left.p.length - right.p.length);
  for (const other of below) {
    const written = writtenValue(other);
    if (written !== undefined) place(subtree, other.p.slice(depth), cloneJson(written));
  }
  return { agentId: operation.agent, value: subtree, at: operation.at };
}

export function startsWithPath(path: readonly string[], prefix: readonly string[]): boolean {
  return prefix.every((part, index) => path[index] === part);
}

/**
 * Lists written concurrently merge add-wins: an element stays when any of the concurrent writers'
 * lists holds it, so a writer that put its own list without the others' elements (it did not
 * merge what it read) removes nothing of theirs. Order: each writer's list in turn, duplicates once.
 */
function unionOfLists(heads: readonly CellEvent[]): JsonValue[] {
  return uniqueJson(
    heads.flatMap((head) => {
      const written = writtenValue(head.change);
      return Array.isArray(written) ? written : [];
    }),
  );
}

function kindOf(value: JsonValue | undefined): string {
  if (value === undefined) return "absent";
  if (Array.isArray(value)) return "list";
  if (isPlainObject(value)) return "object";
  return "scalar";
}

/** Puts `value` at `path` inside `root`; false (not placed) when a scalar already stands on the way. */
function place(root: Record<string, unknown>, path: readonly string[], value: unknown): boolean {
  let node: Record<string, unknown> = root;
  for (const part of path.slice(0, -1)) {
    const child = Object.hasOwn(node, part) ? node[part] : undefined;
    if (child === undefined) {
      const created: Record<string, unknown> = {};
      defineOwn(node, part, created);
      node = created;
    } else if (isPlainObject(child)) {
      node = child;
    } else {
      return false;
    }
  }
  const last = path[path.length - 1];
  if (last === undefined) return false;
  const existing = Object.hasOwn(node, last) ? node[last] : undefined;
  // An empty-object marker under which other cells already placed children adds nothing.
  if (isPlainObject(existing) && isPlainObject(value) && Object.keys(value).length === 0) {
    return true;
  }
  if (existing !== undefined) return false;
  defineOwn(node, last, value);
  return true;
}

/** `isAncestor(a, b)`: had `b`'s writer seen `a`? Walks `b`'s parents, pruned by depth. */
function ancestry(
  byId: ReadonlyMap<string, ItemOperation>,
): (earlier: ItemOperation, later: ItemOperation) => boolean {
  return (earlier, later) => {
    if (earlier === later || earlier.depth >= later.depth) return false;
    const seen = new Set<string>();
    const stack = [...later.parents];
    while (stack.length > 0) {
      const id = stack.pop();
      if (id === undefined || seen.has(id)) continue;
      seen.add(id);
      if (id === earlier.id) return true;
      const operation = byId.get(id);
      if (operation && operation.depth > earlier.depth) stack.push(...operation.parents);
    }
    return false;
  };
}

function cloneJson<T>(value: T): T {
  return value === undefined ? value : (JSON.parse(JSON.stringify(value)) as T);
}

function compareText(left: string, right: string): number {
  return left < right ? -1 : left > right ? 1 : 0;
}

/** Reads an element of an item's `ops` field; undefined when it is not an operation. */
export function parseItemOperation(value: unknown): ItemOperation | undefined {
  if (!isPlainObject(value)) return undefined;
  const { id, agent, at, parents, depth, changes } = value;
  if (typeof id !== "string" || typeof agent !== "string" || typeof at !== "number") {
    return undefined;
  }
  if (typeof depth !== "number" || !Array.isArray(parents) || !Array.isArray(changes)) {
    return undefined;
  }
  return value as unknown as ItemOperation;
}
