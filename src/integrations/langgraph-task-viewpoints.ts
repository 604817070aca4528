import {
  AsyncBatchedStore,
  BaseStore,
  getConfig,
  type LangGraphRunnableConfig,
  type Operation,
} from "@langchain/langgraph";
import type { Viewpoint } from "./langgraph-items.js";

/**
 * Which LangGraph task a store operation belongs to, and what that task sees: the nodes of one
 * step see the store as the step began plus their own writes, as they see the graph's state. Kept
 * apart from `SyncedStore` because it reads LangGraph's run context, which the store's merge
 * does not need to know about.
 */

/**
 * The viewpoints of the LangGraph tasks writing through one store: one per task, each cut at the
 * store's sequence when the first task of its step touched the store.
 */
export class TaskViewpoints {
  readonly #sequence: () => number;
  readonly #steps = new Map<string, { graph: string; snapshot: number }>();
  readonly #tasks = new Map<string, { step: string; viewpoint: Viewpoint }>();

  /** `sequence` reads how many operations the store has indexed: where a new step is cut. */
  constructor(sequence: () => number) {
    this.#sequence = sequence;
  }

  /** The viewpoint of the task that queued `operation`; undefined when no task did. */
  ofOperation(operation: Operation): Viewpoint | undefined {
    const config = taskConfigs.get(operation);
    return config ? this.of(config) : undefined;
  }

  /**
   * The viewpoint of the LangGraph task running with `config`: attributed to its node, seeing
   * what was stored when the first task of its step touched the store, plus its own writes.
   */
  of(config: LangGraphRunnableConfig): Viewpoint | undefined {
    const metadata = config.metadata ?? {};
    const node = metadata.langgraph_node;
    if (typeof node !== "string") return undefined;
    const task =
      typeof metadata.langgraph_checkpoint_ns === "string"
        ? metadata.langgraph_checkpoint_ns
        : `${node}:${String(metadata.langgraph_step)}`;
    const existing = this.#tasks.get(task);
    if (existing) return existing.viewpoint;
    // Runs on different threads are different graphs, even at the same step number.
    const thread = config.configurable?.thread_id;
    const graph = `${typeof thread === "string" ? thread : ""}\u0000${parentOf(task)}`;
    const step = `${graph}\u0000${String(metadata.langgraph_step)}\u0000${checkpointOf(config, parentOf(task))}`;
    let snapshot = this.#steps.get(step);
    if (!snapshot) {
      this.#releaseFinishedSteps(graph);
      snapshot = { graph, snapshot: this.#sequence() };
      this.#steps.set(step, snapshot);
    }
    const own = new Set<string>();
    const cut = snapshot.snapshot;
    const viewpoint: Viewpoint = {
      agentId: node,
      sees: (entry) => entry.sequence <= cut || own.has(entry.operation.id),
      wrote: (id) => own.add(id),
    };
    this.#tasks.set(task, { step, viewpoint });
    return viewpoint;
  }

  /** Forgets every task and step (the store is closing). */
  clear(): void {
    this.#tasks.clear();
    this.#steps.clear();
  }

  /** Once a graph moves to another step, the previous step's tasks are over. */
  #releaseFinishedSteps(graph: string): void {
    for (const [step, entry] of this.#steps) {
      if (entry.graph !== graph) continue;
      this.#steps.delete(step);
      for (const [task, taskEntry] of this.#tasks) {
        if (taskEntry.step === step) this.#tasks.delete(task);
      }
    }
  }
}

/**
 * The task config each queued operation was issued under. LangGraph hands every node the same
 * `AsyncBatchedStore`, which queues operations and runs them later from its own loop, where the
 * run context no longer says which node issued them: so the queueing itself records it.
 */
const taskConfigs = new WeakMap<object, LangGraphRunnableConfig>();
let tagging = false;

/**
 * Wraps `AsyncBatchedStore`'s queueing once, so operations queued for a store `isTagged` accepts
 * (a `SyncedStore`) carry the config of the node that queued them. If a LangGraph version renames
 * the method, nothing is wrapped and writes through `config.store` are attributed to the store's
 * agent id instead (`nodeStore(config)` still attributes them).
 */
export function tagOperationsWithTheirTask(isTagged: (store: BaseStore) => boolean): void {
  if (tagging) return;
  tagging = true;
  const prototype: object = AsyncBatchedStore.prototype;
  const original: unknown = Reflect.get(prototype, "enqueueOperation");
  if (typeof original !== "function") return;
  Reflect.set(prototype, "enqueueOperation", function (this: unknown, operation: Operation) {
    if (this instanceof AsyncBatchedStore && isTagged(unwrapBatchedStore(this))) {
      const config = currentConfig();
      if (config) taskConfigs.set(operation, config);
    }
    return Reflect.apply(original, this, [operation]);
  });
}

function currentConfig(): LangGraphRunnableConfig | undefined {
  try {
    return getConfig();
  } catch {
    return undefined;
  }
}

/** LangGraph wraps the compiled store in an `AsyncBatchedStore` whose `store` field is the original. */
export function unwrapBatchedStore(store: BaseStore): BaseStore {
  if (!(store instanceof AsyncBatchedStore)) return store;
  // `store` is protected in the typings; it is the documented way `extractStore` unwraps it.
  const inner: unknown = Reflect.get(store, "store");
  return inner instanceof BaseStore ? inner : store;
}

/** Which checkpoint a task's step started from: tells two runs' steps of the same number apart. */
function checkpointOf(config: LangGraphRunnableConfig, graph: string): string {
  const info: unknown = Reflect.get(config, "executionInfo");
  const id =
    typeof info === "object" && info !== null ? Reflect.get(info, "checkpointId") : undefined;
  if (typeof id === "string") return id;
  const map: unknown = config.configurable?.checkpoint_map;
  const fromMap = typeof map === "object" && map !== null ? Reflect.get(map, graph) : undefined;
  return typeof fromMap === "string" ? fromMap : "";
}

/** The checkpoint namespace of the graph a task runs in: its own namespace up to the last `|`. */
function parentOf(task: string): string {
  const separator = task.lastIndexOf("|");
  return separator === -1 ? "" : task.slice(0, separator);
}
