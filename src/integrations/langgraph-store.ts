import { randomUUID } from "node:crypto";
import {
  BaseStore,
  type LangGraphRunnableConfig,
  type Operation,
  type OperationResults,
  type PutOperation,
} from "@langchain/langgraph";
import { validateNamespace } from "@langchain/langgraph-checkpoint";
import type { ContextStore } from "../context/context-store.js";
import { UnknownEscalationError } from "../crdt/errors/unknown-escalation-error.js";
import type { Escalation } from "../crdt/escalation.js";
import { SharedState } from "../crdt/shared-state.js";
import { EscalationAlreadyResolvedError } from "./escalation-already-resolved-error.js";
import {
  embedPuts,
  type IndexedText,
  type ItemIndexConfig,
  indexedTexts,
} from "./langgraph-index.js";
import { diffItem, validateItemValue } from "./langgraph-item-diff.js";
import type { CellChange, ItemVector } from "./langgraph-item-log.js";
import {
  ItemIndex,
  itemNamespace,
  listItemNamespaces,
  liveViewpoint,
  searchItems,
  toItem,
  type Viewpoint,
} from "./langgraph-items.js";
import {
  TaskViewpoints,
  tagOperationsWithTheirTask,
  unwrapBatchedStore,
} from "./langgraph-task-viewpoints.js";
import { UnsupportedStoreOperationError } from "./unsupported-store-operation-error.js";

/** Options of {@link SyncedStore.open}. */
export interface SyncedStoreOptions {
  /** Where the shared state lives: an `EmbeddedStore`, or a `StatewaveClient` for several machines. */
  store: ContextStore;
  /** The shared subject (one per graph, project or task). */
  subjectId: string;
  /**
   * Who writes when no LangGraph node is running (a direct `store.put` outside a graph).
   * Inside a graph, writes are attributed to the node that makes them.
   * @default "langgraph"
   */
  agentId?: string;
  /** Clock, in ms since the epoch: the items' `createdAt`/`updatedAt`. @default Date.now */
  now?: () => number;
  /** Ids of the operations written. @default crypto.randomUUID */
  generateId?: () => string;
  /**
   * Called when an `onEscalation` listener throws (the other listeners still run, and the store
   * operation that found the escalation still succeeds), or a background step of the replica fails.
   * @default ignore
   */
  onError?: (error: unknown) => void;
  /**
   * Semantic search, configured as LangGraph's own stores are: `{ embeddings, dims, fields? }`
   * with LangChain's `Embeddings`. Puts embed their indexed fields (`fields`, or the put's own
   * `index` list; `index: false` none), `search(prefix, { query })` ranks by cosine similarity.
   * Without it, a query is ignored and nothing is scored (as `InMemoryStore` without an index).
   */
  index?: ItemIndexConfig;
}

/**
 * A LangGraph.js `BaseStore` with `BaseStore` semantics for one writer and a merge for writers
 * running at the same time.
 *
 * - One writer: `put` replaces the item (fields, map keys and list elements it dropped are gone),
 *   `delete` deletes it, `get` returns what was put, with `createdAt`/`updatedAt` from the writes.
 * - Parallel writers (the nodes of one LangGraph step, or other processes on the same subject):
 *   what each changed merges, field by field. Lists apply each other's additions and removals,
 *   different keys of an object all stay, and two writers setting one value differently (or one
 *   deleting what the other updates) is an escalation naming both: the field reads back as a
 *   `Disputed` until someone calls {@link SyncedStore.resolve}.
 *
 * Only what a writer changed counts: a node that reads an item and writes it back with one field
 * changed writes that field only, and a `Disputed` written back as read is no write at all.
 *
 * Each node's writes are attributed to it, whether it goes through `config.store` (LangGraph's run
 * context tells which node is running) or {@link nodeStore}; the nodes of one step see the store as
 * it was when the step began, plus their own writes, as they see the graph's state.
 *
 * @example
 * ```ts
 * const store = await SyncedStore.open({ store: new EmbeddedStore({ path: "graph.db" }), subjectId: "trip" });
 * const graph = new StateGraph(State)
 *   .addNode("flights", async (_state, config) => {
 *     await config.store?.put(["plan"], "trip", { bookings: ["flight"], budget: 900 });
 *     return {};
 *   })
 *   // ... a parallel "hotels" node writing the same item
 *   .compile({ store });
 * ```
 */
export class SyncedStore extends BaseStore {
  /** The store's replica of the subject's shared state: it follows every node and process. */
  readonly state: SharedState;
  readonly #index: ItemIndex;
  readonly #agentId: string;
  readonly #now: () => number;
  readonly #generateId: () => string;
  readonly #tasks: TaskViewpoints;
  readonly #escalationListeners = new Set<(escalation: Escalation) => void>();
  readonly #announced: Set<string>;
  readonly #unsubscribe: () => void;
  readonly #onError: (error: unknown) => void;
  readonly #indexConfig: ItemIndexConfig | undefined;
  #closed = false;

  private constructor(state: SharedState, options: SyncedStoreOptions) {
    super();
    this.state = state;
    this.#index = new ItemIndex(state);
    this.#tasks = new TaskViewpoints(() => this.#index.sequence);
    this.#agentId = options.agentId ?? "langgraph";
    this.#now = options.now ?? Date.now;
    this.#generateId = options.generateId ?? randomUUID;
    this.#onError = options.onError ?? (() => {});
    this.#indexConfig = options.index;
    // Items change on imports from other processes too: look for new disputes once they settle.
    let scheduled = false;
    this.#unsubscribe = state.onChange(() => {
      if (scheduled || this.#escalationListeners.size === 0) return;
      scheduled = true;
      queueMicrotask(() => {
        scheduled = false;
        this.#announceNewEscalations();
      });
    });
    this.#announced = new Set(this.#itemEscalations().map((escalation) => escalation.id));
    tagOperationsWithTheirTask((store) => store instanceof SyncedStore);
  }

  /** Opens the store's replica of the subject's shared state (rebuilt from the stored updates). */
  static async open(options: SyncedStoreOptions): Promise<SyncedStore> {
    const state = await SharedState.open({
      store: options.store,
      subjectId: options.subjectId,
      agentId: options.agentId ?? "langgraph",
      ...(options.now ? { now: options.now } : {}),
      ...(options.onError ? { onError: options.onError } : {}),
    });
    return new SyncedStore(state, options);
  }

  /** The `index` configuration it was opened with (as LangGraph's `InMemoryStore.indexConfig`). */
  get indexConfig(): ItemIndexConfig | undefined {
    return this.#indexConfig;
  }

  /**
   * Runs LangGraph store operations after catching up with every writer. Each operation runs as
   * the node that issued it (when a LangGraph node did). As in `InMemoryStore`, the reads of a
   * batch see the store as the batch began, and of one writer's puts of one item the last counts.
   * @throws InvalidNamespaceError (LangGraph's) for a namespace `InMemoryStore` refuses, and
   * UnsupportedItemValueError for a value with no encoding: nothing of the batch is written.
   * @throws the embeddings' error when embedding fails: nothing of the batch is written.
   */
  override async batch<Op extends Operation[]>(operations: Op): Promise<OperationResults<Op>> {
    return this.runBatch(operations, undefined);
  }

  /**
   * A store for the node running with `config`: its writes are attributed to the node, and it sees
   * the store as the node's step began plus its own writes. `config.store` does the same on its
   * own; this is for code that holds a config but not LangGraph's run context.
   */
  forNode(config: LangGraphRunnableConfig): BaseStore {
    const viewpoint = this.#tasks.of(config);
    return viewpoint ? new ViewpointStore(this, viewpoint) : this;
  }

  /** A store whose writes are attributed to `agentId`; it sees every write as soon as it is read. */
  asAgent(agentId: string): BaseStore {
    return new ViewpointStore(this, liveViewpoint(agentId));
  }

  /** Every escalation raised so far (open and resolved), after catching up with every writer. */
  async escalations(): Promise<Escalation[]> {
    await this.state.sync();
    return [...this.state.escalations(), ...this.#itemEscalations()].sort((left, right) =>
      compareText(left.id, right.id),
    );
  }

  /** Calls `listener` once for each new escalation this store sees. Returns the unsubscribe. */
  onEscalation(listener: (escalation: Escalation) => void): () => void {
    this.#escalationListeners.add(listener);
    const unsubscribeState = this.state.onEscalation(listener);
    return () => {
      this.#escalationListeners.delete(listener);
      unsubscribeState();
    };
  }

  /**
   * Settles an escalation with `value`, attributed to `by`: every replica reads `value` there from
   * then on, and the escalation shows the resolution.
   * @throws UnknownEscalationError when no item (nor shared-state field) has this escalation open.
   * @throws EscalationAlreadyResolvedError when it was resolved already: a resolution is final.
   */
  async resolve(escalationId: string, value: unknown, options: { by: string }): Promise<void> {
    await this.state.sync();
    const settled = [...this.state.escalations(), ...this.#itemEscalations()].find(
      (escalation) => escalation.id === escalationId,
    )?.resolution;
    if (settled) throw new EscalationAlreadyResolvedError(escalationId, settled);
    const resolved = await this.#index.resolve(escalationId, value, {
      by: options.by,
      at: this.#now(),
      id: this.#generateId(),
    });
    if (resolved) return;
    if (this.state.escalations().some((escalation) => escalation.id === escalationId)) {
      await this.state.resolve(escalationId, value, options);
      return;
    }
    throw new UnknownEscalationError(
      escalationId,
      (await this.escalations()).map((escalation) => escalation.id),
    );
  }

  /** Closes the replica (not the underlying ContextStore, which the caller owns). Idempotent. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#unsubscribe();
    this.#index.close();
    this.#tasks.clear();
    await this.state.close();
  }

  /** @internal Runs `operations` as `viewpoint` (undefined: as whoever issued each one). */
  async runBatch<Op extends Operation[]>(
    operations: Op,
    viewpoint: Viewpoint | undefined,
  ): Promise<OperationResults<Op>> {
    for (const operation of operations) {
      // As InMemoryStore checks each operation (its batch allows the reserved `langgraph` root).
      if ("namespace" in operation) {
        validateNamespace(operation.namespace, { allowReservedRoot: true });
      } else if ("namespacePrefix" in operation && operation.namespacePrefix.length > 0) {
        validateNamespace(operation.namespacePrefix, { allowReservedRoot: true });
      }
    }
    await this.state.sync();
    // All or nothing: a value that cannot be stored fails the batch before anything is written.
    for (const operation of operations) {
      if ("value" in operation && operation.value !== null) {
        validateItemValue(itemNamespace(operation.namespace, operation.key), operation.value);
      }
    }
    const results: unknown[] = [];
    // Keyed by writer: two nodes' puts of one item in one batch both count (they merge).
    const puts = new Map<Viewpoint | undefined, Map<string, PutOperation>>();
    const searches: Array<{ position: number; reader: Viewpoint | undefined }> = [];
    for (const operation of operations) {
      const reader = viewpoint ?? this.#tasks.ofOperation(operation);
      if ("value" in operation) {
        const own = puts.get(reader) ?? new Map<string, PutOperation>();
        puts.set(reader, own);
        own.set(itemNamespace(operation.namespace, operation.key), operation);
        results.push(undefined);
      } else if ("namespacePrefix" in operation) {
        searches.push({ position: results.length, reader });
        results.push(undefined);
      } else if ("key" in operation) {
        const name = itemNamespace(operation.namespace, operation.key);
        results.push(
          toItem([...operation.namespace], operation.key, this.#index.view(name, reader)),
        );
      } else {
        results.push(listItemNamespaces(this.#index, operation, reader));
      }
    }
    const queryVectors = await this.#embedQueries(
      searches.map(({ position }) => operations[position]),
    );
    for (const { position, reader } of searches) {
      const operation = operations[position];
      if (!operation || !("namespacePrefix" in operation)) continue;
      const query = operation.query;
      results[position] = searchItems(
        this.#index,
        operation,
        reader,
        query ? queryVectors.get(query) : undefined,
      );
    }
    const pending = [...puts].flatMap(([reader, own]) =>
      [...own].map(([name, operation]) => ({ name, operation, reader })),
    );
    const vectors = await this.#embedPuts(pending.map(({ operation }) => operation));
    const writes: Promise<void>[] = [];
    pending.forEach(({ name, operation, reader }, position) => {
      const base = this.#index.view(name, reader);
      if (operation.value === null && base.value === undefined) return;
      const changes = diffItem(name, base.cells, operation.value ?? undefined);
      writes.push(this.#write(name, reader, changes, vectors[position]));
    });
    await Promise.all(writes);
    this.#announceNewEscalations();
    // The tuple type maps each operation to its result; the loop above builds it in order.
    return results as OperationResults<Op>;
  }

  /** Each distinct query of the searches, embedded (none without an index). */
  async #embedQueries(
    operations: ReadonlyArray<Operation | undefined>,
  ): Promise<Map<string, number[]>> {
    const config = this.#indexConfig;
    const queries = new Set<string>();
    for (const operation of operations) {
      if (operation && "query" in operation && operation.query) queries.add(operation.query);
    }
    const vectors = new Map<string, number[]>();
    if (!config) return vectors;
    await Promise.all(
      [...queries].map(async (query) => {
        vectors.set(query, await config.embeddings.embedQuery(query));
      }),
    );
    return vectors;
  }

  /** Each put's vectors (undefined for a delete, or without an index). */
  async #embedPuts(operations: readonly PutOperation[]): Promise<Array<ItemVector[] | undefined>> {
    const config = this.#indexConfig;
    if (!config) return operations.map(() => undefined);
    const texts: IndexedText[][] = operations.map((operation) =>
      operation.value === null ? [] : indexedTexts(operation.value, operation.index, config),
    );
    const embedded = await embedPuts(texts, config);
    return operations.map((operation, position) =>
      operation.value === null ? undefined : (embedded[position] ?? []),
    );
  }

  /** Appends one operation to an item's log, applied locally before any await. */
  #write(
    name: string,
    viewpoint: Viewpoint | undefined,
    changes: CellChange[],
    vectors: ItemVector[] | undefined,
  ): Promise<void> {
    return this.#index.write(name, viewpoint ?? liveViewpoint(this.#agentId), {
      id: this.#generateId(),
      at: this.#now(),
      changes,
      ...(vectors === undefined ? {} : { vectors }),
    });
  }

  #itemEscalations(): Escalation[] {
    return this.#index.escalations();
  }

  #announceNewEscalations(): void {
    if (this.#escalationListeners.size === 0) return;
    for (const escalation of this.#itemEscalations()) {
      if (this.#announced.has(escalation.id)) continue;
      this.#announced.add(escalation.id);
      for (const listener of [...this.#escalationListeners]) {
        try {
          listener(escalation);
        } catch (error) {
          this.#onError(error);
        }
      }
    }
  }
}

/**
 * The store a LangGraph node writes through: `config.store` already attributes writes to the
 * running node, so this is only needed where LangGraph's run context is not available (it needs
 * `AsyncLocalStorage`). With any other store (e.g. `InMemoryStore`), `config.store` itself.
 * @throws UnsupportedStoreOperationError when the graph was compiled without a store.
 */
export function nodeStore(config: LangGraphRunnableConfig): BaseStore {
  const store = config.store;
  if (!store) {
    throw new UnsupportedStoreOperationError(
      "nodeStore",
      "this graph has no store: compile it with { store: await SyncedStore.open(...) }",
    );
  }
  const inner = unwrapBatchedStore(store);
  return inner instanceof SyncedStore ? inner.forNode(config) : store;
}

/** A store view running every operation as one viewpoint (a node, or an agent). */
class ViewpointStore extends BaseStore {
  constructor(
    private readonly synced: SyncedStore,
    private readonly viewpoint: Viewpoint,
  ) {
    super();
  }

  override batch<Op extends Operation[]>(operations: Op): Promise<OperationResults<Op>> {
    return this.synced.runBatch(operations, this.viewpoint);
  }
}

function compareText(left: string, right: string): number {
  return left < right ? -1 : left > right ? 1 : 0;
}
