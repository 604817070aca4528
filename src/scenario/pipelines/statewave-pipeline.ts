import { isOn, type RunAblation, type UnstampedEvent } from "../../agents/agent-runtime.js";
import type { BuildResult } from "../../agents/brain.js";
import type { ContextStore, Episode } from "../../context/context-store.js";
import { SharedContext } from "../../context/shared-context.js";
import type { Coordination } from "../../coordination/coordination.js";
import type { Escalation } from "../../crdt/escalation.js";
import { SharedState } from "../../crdt/shared-state.js";
import type { Clock } from "../clock.js";
import type { Scenario } from "../scenario-schema.js";
import { resultReport } from "./read-tokens.js";
import { arbitrateEscalations } from "./statewave/arbitration.js";
import { claimModule } from "./statewave/atomic-claim.js";
import { DecisionIndex } from "./statewave/decision-index.js";
import { MidBuildInvalidation } from "./statewave/invalidation.js";
import { readContext, stringOf } from "./statewave/read-context.js";
import { moduleOfTask } from "./task-modules.js";

export { modulesNamespace } from "./statewave/read-context.js";

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
}

/** Who wrote the inventory memories: the project as it was before the run. */
export const projectSource = "project";
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

/** Episodes of a subject, all of them (Statewave pages at 100). */
async function allEpisodes(store: ContextStore, subjectId: string): Promise<Episode[]> {
  const episodes: Episode[] = [];
  for (let offset = 0; ; offset += 100) {
    const page = await store.getTimeline(subjectId, { limit: 100, offset });
    episodes.push(...page.episodes);
    if (page.episodes.length < 100) return episodes;
  }
}

/**
 * The shared-context pipeline. Each mechanism is one module: read-before-act (with history for a
 * late joiner, disputes surfaced and a bounded context) in `read-context`, mid-build invalidation
 * in `invalidation`, atomic claims in `atomic-claim`, the lead's settling in `arbitration`.
 *
 * Each agent has its own replica, brought up to date when it reads (its knowledge is what it last
 * read, as for a real agent in another process), so writes made without seeing each other are
 * concurrent and a register written concurrently is escalated, never silently won. Every store
 * call goes through the clock's `exclusive`: the run's outcome is fixed by scenario, mode and seed.
 */
export async function createStatewaveCoordination(
  options: StatewaveCoordinationOptions,
): Promise<Coordination> {
  const { store, subjectId, scenario, emit, clock } = options;
  const ablation = options.ablation ?? {};
  const budgetTokens = scenario.contextBudgetTokens;
  const index = new DecisionIndex();
  const dependsOn = new Map(Object.entries(scenario.dependsOn));

  if (scenario.inventory.length > 0) {
    await clock.exclusive(async () => {
      await store.createEpisodesBatch(
        scenario.inventory.map((module) => ({
          subjectId,
          source: projectSource,
          type: "architectural_decision",
          payload: {
            content: `${module} is an existing module, in use.`,
            target: module,
            value: "in-use",
          },
        })),
      );
      await store.compileMemories(subjectId);
    });
  }

  const openReplica = (agentId: string, incarnation = 0) =>
    SharedState.open({
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
      now: () => Math.round(options.now()),
    });
  const states = new Map<string, SharedState>();
  const contexts = new Map<string, SharedContext>();
  for (const agent of scenario.agents) {
    const state = await clock.exclusive(() => openReplica(agent.id));
    states.set(agent.id, state);
    contexts.set(agent.id, new SharedContext({ store, subjectId, state }));
  }
  const lookup = <T>(map: Map<string, T>, agentId: string): T => {
    const found = map.get(agentId);
    if (found === undefined) throw new RangeError(`no agent "${agentId}" in ${scenario.name}`);
    return found;
  };
  const joinedAt = new Map<string, number>();
  const decisionCounts = new Map<string, number>();

  // One `escalation` event per escalation, whichever replica sees it first.
  const announced = new Set<string>();
  const announce = (escalation: Escalation) => {
    if (announced.has(escalation.id)) return;
    announced.add(escalation.id);
    emit({
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
  const stopAnnouncing = [...states.values()].map((state) => state.onEscalation(announce));

  const invalidation = new MidBuildInvalidation({
    contextOf: (agentId) => lookup(contexts, agentId),
    index,
    budgetTokens,
    exclusive: clock.exclusive,
    emit,
    dependsOn,
    disputesSurfaced: isOn(ablation, "dispute surfaced"),
  });

  /** Agent -> how many times it restarted. */
  const restarts = new Map<string, number>();

  /**
   * What a restarted agent built before its crash, on the task's module: its implementation notes
   * in the store (the ranked context carries them; this reads them back by name).
   */
  const ownBuildsOf = async (agentId: string, task: string): Promise<string[]> => {
    const module = moduleOfTask(task);
    if (module === undefined) return [];
    const episodes = await clock.exclusive(() => allEpisodes(store, subjectId));
    return episodes.some(
      (episode) =>
        episode.type === "implementation_note" &&
        episode.source === agentId &&
        episode.payload.module === module,
    )
      ? [module]
      : [];
  };

  const read = async (agentId: string, task: string, mechanisms = ablation) => {
    const known = await readKnown(agentId, task, mechanisms);
    if (!restarts.has(agentId)) return known;
    return { ...known, ownBuilds: await ownBuildsOf(agentId, task) };
  };

  const readKnown = async (agentId: string, task: string, mechanisms: RunAblation) => {
    const { known } = await clock.exclusive(() =>
      readContext(agentId, task, {
        context: lookup(contexts, agentId),
        store,
        subjectId,
        dependsOn,
        state: lookup(states, agentId),
        index,
        ablation: mechanisms,
        joinedAt: joinedAt.get(agentId) ?? 0,
        budgetTokens,
        emit,
        announce,
      }),
    );
    return known;
  };

  return {
    join: (agentId) => {
      joinedAt.set(agentId, Math.round(options.now()));
    },
    // Its replica and its context are dropped (what it had read, its cursor on what changed); a
    // fresh replica loads the shared state from the store, and its next read is a joiner's.
    restart: async (agentId) => {
      const incarnation = (restarts.get(agentId) ?? 0) + 1;
      restarts.set(agentId, incarnation);
      await lookup(contexts, agentId).close();
      await lookup(states, agentId).close();
      const state = await clock.exclusive(() => openReplica(agentId, incarnation));
      stopAnnouncing.push(state.onEscalation(announce));
      states.set(agentId, state);
      contexts.set(agentId, new SharedContext({ store, subjectId, state }));
      joinedAt.set(agentId, Math.round(options.now()));
    },
    read: (agentId, task) => read(agentId, task),
    publishDecision: async (agentId, decision, given) => {
      const count = (decisionCounts.get(agentId) ?? 0) + 1;
      decisionCounts.set(agentId, count);
      const decisionId = given ?? `${agentId}#${count}`;
      const at = Math.round(options.now());
      const { episode } = await clock.exclusive(() =>
        lookup(contexts, agentId).decide(agentId, decision.content, {
          kind: "architectural_decision",
          target: decision.target,
          payload: { value: decision.value, at },
          ...(decision.authority !== undefined ? { authority: decision.authority } : {}),
        }),
      );
      const { by: replacement, ...fields } = decision;
      index.add(episode.id, {
        ...fields,
        by: agentId,
        at,
        id: decisionId,
        ...(replacement !== undefined ? { replacement } : {}),
      });
      // No guard here: with mid-build invalidation off nobody is watching (see watchModule, the
      // mechanism's one guard), so this delivers nothing.
      await invalidation.afterWrite(agentId);
    },
    claim: (agentId, module) =>
      isOn(ablation, "atomic claim")
        ? claimModule(agentId, module, {
            state: lookup(states, agentId),
            clock,
            thinkMs: scenario.timings.thinkMs,
            emit,
            announce,
          })
        : Promise.resolve({ granted: true }),
    watchModule: (agentId, module, onInvalid) =>
      isOn(ablation, "mid-build invalidation")
        ? invalidation.watch(agentId, module, onInvalid)
        : () => undefined,
    reportResult: async (agentId, result) => {
      await clock.exclusive(() =>
        lookup(contexts, agentId).decide(agentId, resultReport(result.module, agentId), {
          kind: "implementation_note",
          target: result.module,
          payload: { module: result.module, tokens: result.tokens, ms: result.ms },
        }),
      );
      // Notes and tags merge cleanly: concurrent appends and additions are all kept.
      const state = lookup(states, agentId);
      await clock.exclusive(() =>
        state.put(projectNamespace, "notes", `${agentId} built ${result.module}`),
      );
      await clock.exclusive(() => state.put(projectNamespace, "tags", [result.module]));
    },
    collectForReview: async (agentId) => {
      // The Reviewer judges against the decisions active at the end (superseded ones are not),
      // all of them: switching a mechanism off changes what the workers know, not the verdict.
      const known = await read(agentId, "Review the finished work against the decisions", {});
      const episodes = await clock.exclusive(() => allEpisodes(store, subjectId));
      const results: BuildResult[] = [];
      for (const episode of episodes) {
        const { payload } = episode;
        if (episode.type === "implementation_note" && typeof payload.module === "string") {
          results.push({
            module: payload.module,
            agentId: episode.source,
            tokens: Number(payload.tokens),
            ms: Number(payload.ms),
          });
        }
      }
      return { decisions: known.decisions, results, disputes: known.disputes };
    },
    arbitrate: async (agentId, choose, until) => {
      // Settled on the agent's own replica: the lead arbitrates only after its last decision
      // (planner-agent), so the syncs of its duty cannot change what any decision of it knew.
      const state = lookup(states, agentId);
      await arbitrateEscalations({
        agentId,
        state,
        clock,
        periodMs: Math.max(1, Math.round(scenario.timings.thinkMs / 4)),
        choose,
        until,
        onResolved: (escalation, winner) =>
          emit({
            type: "escalation-resolve",
            escalationId: escalation.id,
            by: agentId,
            value: winner,
          }),
      });
    },
    close: async () => {
      for (const stop of stopAnnouncing) stop();
      for (const context of contexts.values()) await context.close();
      for (const state of states.values()) await state.close();
    },
  };
}
