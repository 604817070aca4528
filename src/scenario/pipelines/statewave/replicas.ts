import type { UnstampedEvent } from "../../../agents/agent-runtime.js";
import type { ContextStore } from "../../../context/context-store.js";
import { SharedContext } from "../../../context/shared-context.js";
import type { Escalation } from "../../../crdt/escalation.js";
import { SharedState } from "../../../crdt/shared-state.js";
import type { Clock } from "../../clock.js";
import { stringOf } from "./read-context.js";

/** The shared-state namespace for what merges cleanly: notes (text) and tags (set). */
export const projectNamespace = "project";

/** A 53-bit peer id from a name (FNV-1a): the same replica of the same run gets the same id. */
function replicaPeerId(name: string): bigint {
  let hash = 0xcbf29ce484222325n;
  for (const byte of new TextEncoder().encode(name)) {
    hash = ((hash ^ BigInt(byte)) * 0x100000001b3n) & 0xffffffffffffffffn;
  }
  return (hash & 0x1fffffffffffffn) + 1n;
}

/** One `escalation` event per escalation, whichever replica (or reader) sees it first. */
export class EscalationAnnouncer {
  readonly #emit: (event: UnstampedEvent) => void;
  readonly #announced = new Set<string>();

  constructor(emit: (event: UnstampedEvent) => void) {
    this.#emit = emit;
  }

  /** Announces `escalation` unless it was announced before (bound: pass it as a listener). */
  readonly announce = (escalation: Escalation): void => {
    if (this.#announced.has(escalation.id)) return;
    this.#announced.add(escalation.id);
    this.#emit({
      type: "escalation",
      escalationId: escalation.id,
      namespace: escalation.namespace,
      key: escalation.key,
      contenders: escalation.contenders.map((contender) => ({
        agentId: contender.agentId,
        value: stringOf(contender.value),
      })),
    });
  };
}

/** What {@link AgentReplicas} needs. */
export interface AgentReplicasOptions {
  store: ContextStore;
  /** The store as `agentId`'s replica and context use it (its requests counted). @default store */
  storeOf?(agentId: string): ContextStore;
  subjectId: string;
  clock: Clock;
  /** Scenario milliseconds since the run started. */
  now(): number;
  announcer: EscalationAnnouncer;
  /** For the error naming an unknown agent. */
  scenarioName: string;
}

/**
 * Each agent's own replica of the shared state, and its shared context over it: an agent knows
 * what it last read, as a real agent in another process would, so writes made without seeing
 * each other are concurrent. Every replica's escalations are announced once. Also when each agent
 * joined: a restarted agent joins again, and its next read is a joiner's.
 */
export class AgentReplicas {
  readonly #options: AgentReplicasOptions;
  readonly #states = new Map<string, SharedState>();
  readonly #contexts = new Map<string, SharedContext>();
  /** Agent -> how many times it restarted. */
  readonly #restarts = new Map<string, number>();
  /** Agent -> when it joined (or restarted), in scenario milliseconds. */
  readonly #joinedAt = new Map<string, number>();
  readonly #stopAnnouncing: Array<() => void> = [];

  private constructor(options: AgentReplicasOptions) {
    this.#options = options;
  }

  /** Opens a replica for each of `agentIds`, one by one, then announces their escalations. */
  static async open(
    options: AgentReplicasOptions,
    agentIds: readonly string[],
  ): Promise<AgentReplicas> {
    const replicas = new AgentReplicas(options);
    for (const agentId of agentIds) {
      const state = await options.clock.exclusive(() => replicas.#openReplica(agentId, 0));
      replicas.#keep(agentId, state);
    }
    for (const state of replicas.#states.values()) replicas.#announceFrom(state);
    return replicas;
  }

  /** `agentId`'s replica of the shared state. */
  state(agentId: string): SharedState {
    return this.#lookup(this.#states, agentId);
  }

  /** `agentId`'s shared context (over its replica). */
  context(agentId: string): SharedContext {
    return this.#lookup(this.#contexts, agentId);
  }

  /** `agentId` joins the run now. */
  join(agentId: string): void {
    this.#joinedAt.set(agentId, Math.round(this.#options.now()));
  }

  /** When `agentId` last joined (or restarted), in scenario milliseconds. */
  joinedAt(agentId: string): number {
    return this.#joinedAt.get(agentId) ?? 0;
  }

  /** Whether `agentId` has restarted at least once. */
  hasRestarted(agentId: string): boolean {
    return this.#restarts.has(agentId);
  }

  /**
   * Crash-restart on the shared context: the agent's replica and its context are dropped (what
   * it had read, its cursor on what changed); a fresh replica, a new peer, loads the shared state
   * from the store, and the agent joins again (its next read is a joiner's).
   */
  async restart(agentId: string): Promise<void> {
    const incarnation = (this.#restarts.get(agentId) ?? 0) + 1;
    this.#restarts.set(agentId, incarnation);
    await this.context(agentId).close();
    await this.state(agentId).close();
    const state = await this.#options.clock.exclusive(() =>
      this.#openReplica(agentId, incarnation),
    );
    this.#announceFrom(state);
    this.#keep(agentId, state);
    this.join(agentId);
  }

  /** Stops announcing, then closes every context and every replica. */
  async close(): Promise<void> {
    for (const stop of this.#stopAnnouncing) stop();
    for (const context of this.#contexts.values()) await context.close();
    for (const state of this.#states.values()) await state.close();
  }

  #storeOf(agentId: string): ContextStore {
    return this.#options.storeOf?.(agentId) ?? this.#options.store;
  }

  #openReplica(agentId: string, incarnation: number): Promise<SharedState> {
    const { subjectId } = this.#options;
    const store = this.#storeOf(agentId);
    return SharedState.open({
      store,
      subjectId,
      agentId,
      // Fixed per agent, not random and not per run id: which of two concurrent writes a
      // register's merge lists first depends on peer ids, and a run must depend only on scenario,
      // mode and seed (each run has its own subject, so ids need only differ within one run).
      // A restarted agent's replica is a new peer: the old one's unsaved state died with it.
      peerId: replicaPeerId(
        incarnation === 0 ? `${agentId}/work` : `${agentId}/work/${incarnation}`,
      ),
      schema: { [projectNamespace]: { notes: "text", tags: "set" } },
      live: false,
      // Contenders' times in scenario milliseconds: the arbitrating lead compares them.
      now: () => Math.round(this.#options.now()),
    });
  }

  /** Keeps `state` as `agentId`'s replica, with a shared context over it. */
  #keep(agentId: string, state: SharedState): void {
    const { subjectId } = this.#options;
    const store = this.#storeOf(agentId);
    this.#states.set(agentId, state);
    this.#contexts.set(agentId, new SharedContext({ store, subjectId, state }));
  }

  #announceFrom(state: SharedState): void {
    this.#stopAnnouncing.push(state.onEscalation(this.#options.announcer.announce));
  }

  #lookup<T>(map: Map<string, T>, agentId: string): T {
    const found = map.get(agentId);
    if (found === undefined) {
      throw new RangeError(`no agent "${agentId}" in ${this.#options.scenarioName}`);
    }
    return found;
  }
}
