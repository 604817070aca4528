import {
  BaseStore,
  type LangGraphRunnableConfig,
  type Operation,
  type OperationResults,
} from "@langchain/langgraph";
import type { ContextStore } from "../context/context-store.js";
import { type Escalation, SharedState } from "../crdt/shared-state.js";
import { getItem, listItemNamespaces, putItem, searchItems } from "./langgraph-items.js";
import { UnsupportedStoreOperationError } from "./unsupported-store-operation-error.js";

/** Options of {@link SyncedStore.open}. */
export interface SyncedStoreOptions {
  /** Where the shared state lives: an `EmbeddedStore`, or a `StatewaveClient` for several machines. */
  store: ContextStore;
  /** The shared subject (one per graph, project or task). */
  subjectId: string;
  /**
   * Who writes through `config.store` directly. LangGraph batches every node's operations into one
   * call with no node attached, so per-node attribution goes through {@link nodeStore}.
   * @default "langgraph"
   */
  agentId?: string;
  /** Clock, in ms since the epoch. @default Date.now */
  now?: () => number;
}

/**
 * A LangGraph.js `BaseStore` that merges what parallel nodes write instead of keeping the last write.
 *
 * Each item is a set of shared-state fields (one per top-level property of its value): lists are
 * unioned, objects deep-merged, and two nodes setting one scalar to different values is an
 * escalation naming both, read back as a `Disputed` value. State is persisted through the shared-ctx
 * store, so it survives the process and is shared with other processes on the same subject.
 *
 * Inside a node, write through `nodeStore(config)` so the write is attributed to that node and
 * merged as concurrent with the other nodes of the same step.
 *
 * @example
 * ```ts
 * const store = await SyncedStore.open({ store: new EmbeddedStore({ path: "graph.db" }), subjectId: "trip" });
 * const graph = new StateGraph(State)
 *   .addNode("flights", async (_state, config) => {
 *     await nodeStore(config).put(["plan"], "trip", { bookings: ["flight"], budget: 900 });
 *     return {};
 *   })
 *   // ... a parallel "hotels" node writing the same item
 *   .compile({ store });
 * ```
 */
export class SyncedStore extends BaseStore {
  /** The store's own replica: it follows every node and process, and answers `config.store` reads. */
  readonly state: SharedState;
  private readonly options: SyncedStoreOptions;
  private readonly now: () => number;
  private readonly agentViews = new Map<string, AgentStore>();
  private readonly nodeViews = new Map<string, { step: unknown; view: AgentStore }>();
  private closed = false;

  private constructor(state: SharedState, options: SyncedStoreOptions) {
    super();
    this.state = state;
    this.options = options;
    this.now = options.now ?? Date.now;
  }

  /** Opens the store's replica of the subject's shared state (rebuilt from the stored updates). */
  static async open(options: SyncedStoreOptions): Promise<SyncedStore> {
    const state = await SharedState.open({
      store: options.store,
      subjectId: options.subjectId,
      agentId: options.agentId ?? "langgraph",
      ...(options.now ? { now: options.now } : {}),
    });
    return new SyncedStore(state, options);
  }

  /** Runs LangGraph store operations on the store's replica, after catching up with every writer. */
  override async batch<Op extends Operation[]>(operations: Op): Promise<OperationResults<Op>> {
    await this.state.sync();
    return runOperations(this.state, operations, this.now);
  }

  /**
   * A store for the node running with `config`: reads see the shared state as the node's first store
   * call found it, and writes are attributed to the node (its name is the agent id), so the nodes of
   * one step are concurrent writers whose conflicts are escalated rather than overwritten.
   */
  forNode(config: LangGraphRunnableConfig): BaseStore {
    const metadata = config.metadata ?? {};
    const node = typeof metadata.langgraph_node === "string" ? metadata.langgraph_node : undefined;
    if (node === undefined) return this;
    const task =
      typeof metadata.langgraph_checkpoint_ns === "string"
        ? metadata.langgraph_checkpoint_ns
        : `${node}:${String(metadata.langgraph_step)}`;
    const existing = this.nodeViews.get(task);
    if (existing) return existing.view;
    this.releaseFinishedSteps(task, metadata.langgraph_step);
    const view = new AgentStore(
      () => this.openReplica(node, { live: false }),
      this.now,
      // A snapshot: the node must not see its siblings' writes mid-step, as LangGraph state does not.
      false,
    );
    this.nodeViews.set(task, { step: metadata.langgraph_step, view });
    return view;
  }

  /** A store whose writes are attributed to `agentId`, on its own live replica. */
  asAgent(agentId: string): BaseStore {
    let view = this.agentViews.get(agentId);
    if (!view) {
      view = new AgentStore(() => this.openReplica(agentId, { live: true }), this.now, true);
      this.agentViews.set(agentId, view);
    }
    return view;
  }

  /** Every escalation raised so far (open and resolved), after catching up with every writer. */
  async escalations(): Promise<Escalation[]> {
    await this.state.sync();
    return this.state.escalations();
  }

  /** Calls `listener` for each new escalation this store's replica sees. Returns the unsubscribe. */
  onEscalation(listener: (escalation: Escalation) => void): () => void {
    return this.state.onEscalation(listener);
  }

  /** Closes every replica (not the underlying ContextStore, which the caller owns). Idempotent. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const views = [
      ...this.agentViews.values(),
      ...[...this.nodeViews.values()].map((entry) => entry.view),
    ];
    this.agentViews.clear();
    this.nodeViews.clear();
    await Promise.all(views.map((view) => view.close()));
    await this.state.close();
  }

  private openReplica(agentId: string, options: { live: boolean }): Promise<SharedState> {
    return SharedState.open({
      store: this.options.store,
      subjectId: this.options.subjectId,
      agentId,
      live: options.live,
      ...(this.options.now ? { now: this.options.now } : {}),
    });
  }

  /**
   * Node replicas are per task; once a graph (same thread and parent) moves to another step, the
   * previous step's tasks are over, so their replicas can go.
   */
  private releaseFinishedSteps(task: string, step: unknown): void {
    const graph = parentOf(task);
    for (const [otherTask, entry] of this.nodeViews) {
      if (parentOf(otherTask) === graph && entry.step !== step) {
        this.nodeViews.delete(otherTask);
        void entry.view.close();
      }
    }
  }
}

/**
 * The store a LangGraph node should write through: with a {@link SyncedStore}, a view attributed to
 * the node; with any other store (e.g. `InMemoryStore`), `config.store` itself, so one node function
 * runs on either.
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

/** LangGraph wraps the compiled store in an `AsyncBatchedStore` whose `store` field is the original. */
function unwrapBatchedStore(store: BaseStore): BaseStore {
  if (Reflect.get(store, "lg_name") !== "AsyncBatchedStore") return store;
  const inner: unknown = Reflect.get(store, "store");
  return inner instanceof BaseStore ? inner : store;
}

function parentOf(task: string): string {
  const separator = task.lastIndexOf("|");
  return separator === -1 ? "" : task.slice(0, separator);
}

/** A store view over one agent's replica, opened on first use. */
class AgentStore extends BaseStore {
  private replica: Promise<SharedState> | undefined;

  constructor(
    private readonly openReplica: () => Promise<SharedState>,
    private readonly now: () => number,
    private readonly followOthers: boolean,
  ) {
    super();
  }

  override async batch<Op extends Operation[]>(operations: Op): Promise<OperationResults<Op>> {
    this.replica ??= this.openReplica();
    const state = await this.replica;
    if (this.followOthers) await state.sync();
    return runOperations(state, operations, this.now);
  }

  async close(): Promise<void> {
    const replica = this.replica;
    this.replica = undefined;
    if (replica) await (await replica).close();
  }
}

async function runOperations<Op extends Operation[]>(
  state: SharedState,
  operations: Op,
  now: () => number,
): Promise<OperationResults<Op>> {
  const results: unknown[] = [];
  const writes: Promise<void>[] = [];
  for (const operation of operations) {
    if ("value" in operation) {
      if (operation.value === null) {
        throw new UnsupportedStoreOperationError(
          "delete",
          `SyncedStore cannot delete ${JSON.stringify([...operation.namespace, operation.key])}: shared state merges writes and never drops one silently`,
        );
      }
      writes.push(putItem(state, operation.namespace, operation.key, operation.value));
      results.push(undefined);
    } else if ("namespacePrefix" in operation) {
      results.push(searchItems(state, operation, now));
    } else if ("key" in operation) {
      results.push(getItem(state, operation.namespace, operation.key, now));
    } else {
      results.push(listItemNamespaces(state, operation));
    }
  }
  await Promise.all(writes);
  // The tuple type maps each operation to its result; the loop above builds it in order.
  return results as OperationResults<Op>;
}
