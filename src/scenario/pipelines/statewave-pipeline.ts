import { isOn, type RunAblation, type UnstampedEvent } from "../../agents/agent-runtime.js";
import type { ContextStore } from "../../context/context-store.js";
import type {
  ArbitrationRequest,
  ClaimOutcome,
  Coordination,
  KnownState,
} from "../../coordination/coordination.js";
import type { PlannedDecision } from "../../coordination/scenario-schema.js";
import type { Clock } from "../clock.js";
import type { Scenario } from "../scenario-schema.js";
import { DecisionIds } from "./decision-ids.js";
import { arbitrateEscalations } from "./statewave/arbitration.js";
import { claimModule } from "./statewave/atomic-claim.js";
import { DecisionIndex } from "./statewave/decision-index.js";
import { MidBuildInvalidation } from "./statewave/invalidation.js";
import { readContext } from "./statewave/read-context.js";
import { AgentReplicas, EscalationAnnouncer } from "./statewave/replicas.js";
import {
  ownBuildsOf,
  type RunStore,
  recordedResults,
  recordResult,
  runEpisodes,
  seedInventory,
} from "./statewave/store-records.js";

export { modulesNamespace } from "./statewave/read-context.js";
export { projectNamespace } from "./statewave/replicas.js";
export { projectSource } from "./statewave/store-records.js";

/** Options of {@link createStatewaveCoordination}. */
export interface StatewaveCoordinationOptions {
  store: ContextStore;
  /** The run id: the subject every agent shares. */
  subjectId: string;
  scenario: Scenario;
  emit(event: UnstampedEvent): void;
  clock: Clock;
  /** Scenario milliseconds since the run started. */
  now(): number;
  /** Mechanisms switched off. @default none */
  ablation?: RunAblation;
  /**
   * The store as one agent's coordination uses it: the runner counts each agent's requests
   * through it (the one cost rule). @default `store`
   */
  storeFor?(agentId: string): ContextStore;
}

/** What the pipeline's steps share: the run's store, the agents' replicas, the mechanisms. */
interface StatewaveRun extends RunStore {
  scenario: Scenario;
  emit(event: UnstampedEvent): void;
  now(): number;
  ablation: RunAblation;
  dependsOn: ReadonlyMap<string, readonly string[]>;
  index: DecisionIndex;
  ids: DecisionIds;
  announcer: EscalationAnnouncer;
  replicas: AgentReplicas;
  invalidation: MidBuildInvalidation;
  /** The store as `agentId`'s coordination uses it (its requests counted). */
  storeOf(agentId: string): ContextStore;
}

/** Seeds the inventory, opens every agent's replica, and sets the mechanisms up. */
async function openStatewaveRun(options: StatewaveCoordinationOptions): Promise<StatewaveRun> {
  const { store, subjectId, scenario, emit, clock, now } = options;
  const storeOf = options.storeFor ?? (() => store);
  const ablation = options.ablation ?? {};
  const index = new DecisionIndex();
  const dependsOn = new Map(Object.entries(scenario.dependsOn));
  await seedInventory(options, scenario.inventory);
  const announcer = new EscalationAnnouncer(emit);
  const replicas = await AgentReplicas.open(
    { store, storeOf, subjectId, clock, now, announcer, scenarioName: scenario.name },
    scenario.agents.map((agent) => agent.id),
  );
  const invalidation = new MidBuildInvalidation({
    contextOf: (agentId) => replicas.context(agentId),
    index,
    budgetTokens: scenario.contextBudgetTokens,
    exclusive: clock.exclusive,
    emit,
    dependsOn,
    disputesSurfaced: isOn(ablation, "dispute surfaced"),
  });
  const ids = new DecisionIds();
  return {
    store,
    subjectId,
    clock,
    scenario,
    emit,
    now,
    ablation,
    dependsOn,
    index,
    ids,
    announcer,
    replicas,
    invalidation,
    storeOf,
  };
}

/**
 * Read-before-act (`readContext`), with the `mechanisms` given; a restarted agent also learns
 * what it built before its crash.
 */
async function readFor(
  run: StatewaveRun,
  agentId: string,
  task: string,
  mechanisms = run.ablation,
): Promise<KnownState> {
  const known = await readKnown(run, agentId, task, mechanisms);
  if (!run.replicas.hasRestarted(agentId)) return known;
  const own = await ownBuildsOf({ ...run, store: run.storeOf(agentId) }, agentId, task);
  return { ...known, ownBuilds: own };
}

/** The context read itself, in the run's fixed order. */
async function readKnown(
  run: StatewaveRun,
  agentId: string,
  task: string,
  mechanisms: RunAblation,
): Promise<KnownState> {
  const { known } = await run.clock.exclusive(() =>
    readContext(agentId, task, {
      context: run.replicas.context(agentId),
      store: run.storeOf(agentId),
      subjectId: run.subjectId,
      dependsOn: run.dependsOn,
      state: run.replicas.state(agentId),
      index: run.index,
      ablation: mechanisms,
      joinedAt: run.replicas.joinedAt(agentId),
      budgetTokens: run.scenario.contextBudgetTokens,
      emit: run.emit,
      announce: run.announcer.announce,
    }),
  );
  return known;
}

/** A decision, decided in the agent's context and indexed; then work in flight re-reads. */
async function publish(
  run: StatewaveRun,
  agentId: string,
  decision: PlannedDecision,
  given: string | undefined,
): Promise<void> {
  const id = run.ids.next(agentId, given);
  const at = Math.round(run.now());
  const { episode } = await run.clock.exclusive(() =>
    run.replicas.context(agentId).decide(agentId, decision.content, {
      kind: "architectural_decision",
      target: decision.target,
      payload: { value: decision.value, at },
      ...(decision.authority !== undefined ? { authority: decision.authority } : {}),
    }),
  );
  const { by: replacement, ...fields } = decision;
  run.index.add(episode.id, {
    ...fields,
    by: agentId,
    at,
    id,
    ...(replacement !== undefined ? { replacement } : {}),
  });
  // No guard here: with mid-build invalidation off nobody is watching (see watchModule, the
  // mechanism's one guard), so this delivers nothing.
  await run.invalidation.afterWrite(agentId);
}

/** Atomic claim in the shared state's modules register, or (switched off) granted at once. */
function claim(run: StatewaveRun, agentId: string, module: string): Promise<ClaimOutcome> {
  if (!isOn(run.ablation, "atomic claim")) return Promise.resolve({ granted: true });
  return claimModule(agentId, module, {
    state: run.replicas.state(agentId),
    clock: run.clock,
    thinkMs: run.scenario.timings.thinkMs,
    emit: run.emit,
    announce: run.announcer.announce,
    agentOrder: run.scenario.agents.map((agent) => agent.id),
  });
}

/**
 * The Reviewer judges against the decisions active at the end (superseded ones are not), all of
 * them: switching a mechanism off changes what the workers know, not the verdict.
 */
async function review(run: StatewaveRun, agentId: string) {
  const known = await readFor(run, agentId, "Review the finished work against the decisions", {});
  const results = recordedResults(await runEpisodes({ ...run, store: run.storeOf(agentId) }));
  return { decisions: known.decisions, results, disputes: known.disputes };
}

/**
 * The lead's settling, on its own replica: it arbitrates only after its last decision
 * (planner-agent), so the syncs of its duty cannot change what any decision of it knew.
 */
async function arbitrate(
  run: StatewaveRun,
  agentId: string,
  choose: (request: ArbitrationRequest) => string | undefined,
  until: Promise<void>,
): Promise<void> {
  await arbitrateEscalations({
    agentId,
    state: run.replicas.state(agentId),
    clock: run.clock,
    periodMs: Math.max(1, Math.round(run.scenario.timings.thinkMs / 4)),
    choose,
    until,
    onResolved: (escalation, winner) =>
      run.emit({
        type: "escalation-resolve",
        escalationId: escalation.id,
        by: agentId,
        value: winner,
      }),
  });
}

/**
 * The shared-context pipeline. Each mechanism is one module: read-before-act (with history for a
 * late joiner, disputes surfaced and a bounded context) in `read-context`, mid-build invalidation
 * in `invalidation`, atomic claims in `atomic-claim`, the lead's settling in `arbitration`; the
 * agents' replicas (and crash-restart) in `replicas`, what is written to the store and read back
 * in `store-records`.
 *
 * Each agent has its own replica, brought up to date when it reads (its knowledge is what it last
 * read, as for a real agent in another process), so writes made without seeing each other are
 * concurrent and a register written concurrently is escalated, never silently won. Every store
 * call goes through the clock's `exclusive`: the run's outcome is fixed by scenario, mode and seed.
 */
export async function createStatewaveCoordination(
  options: StatewaveCoordinationOptions,
): Promise<Coordination> {
  const run = await openStatewaveRun(options);
  return {
    join: (agentId) => run.replicas.join(agentId),
    // Crash-restart: a fresh replica, and the agent joins again (`AgentReplicas.restart`).
    restart: (agentId) => run.replicas.restart(agentId),
    read: (agentId, task) => readFor(run, agentId, task),
    publishDecision: (agentId, decision, given) => publish(run, agentId, decision, given),
    claim: (agentId, module) => claim(run, agentId, module),
    watchModule: (agentId, module, onInvalid) =>
      isOn(run.ablation, "mid-build invalidation")
        ? run.invalidation.watch(agentId, module, onInvalid)
        : () => undefined,
    reportResult: (agentId, result) => recordResult(run, agentId, result),
    collectForReview: (agentId) => review(run, agentId),
    arbitrate: (agentId, choose, until) => arbitrate(run, agentId, choose, until),
    // The store's process restarts: its log is durable, so the next sync of each replica and the
    // next read find everything that was written.
    restartCoordinator: async () =>
      "the store's log is durable: nothing is lost (every replica syncs again from it)",
    close: () => run.replicas.close(),
  };
}
