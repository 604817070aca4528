import type { UnstampedEvent } from "../../agents/agent-runtime.js";
import type { BuildResult, KnownDecision, KnownDispute } from "../../agents/brain.js";
import type { ContextStore, Episode, JsonObject, Memory } from "../../context/context-store.js";
import { type MemoryDispute, SharedContext } from "../../context/shared-context.js";
import { Disputed } from "../../crdt/disputed.js";
import type { Escalation } from "../../crdt/escalation.js";
import { SharedState } from "../../crdt/shared-state.js";
import type { Clock } from "../clock.js";
import type { Scenario } from "../scenario-schema.js";
import type { ClaimOutcome, Coordination, KnownState } from "./coordination.js";

/** Options of {@link createStatewaveCoordination}. */
export interface StatewaveCoordinationOptions {
  store: ContextStore;
  /** The run id: the subject every agent shares. */
  subjectId: string;
  scenario: Scenario;
  emit(event: UnstampedEvent): void;
  clock: Clock;
}

/** Who wrote the inventory memories: the project as it was before the run. */
export const projectSource = "project";
/** The shared-state namespace holding one register per module: who builds it, or its fate. */
export const modulesNamespace = "modules";
/** The shared-state namespace for what merges cleanly: notes (text) and tags (set). */
export const projectNamespace = "project";

const claimedPrefix = "claimed-by:";
const deprecatedPrefix = "deprecated-by:";

/** How many waits of `thinkMs / 4` a Coder gives an escalation to be resolved before it gives up. */
const resolutionPatience = 12;

function stringOf(value: unknown): string {
  return typeof value === "string" ? value : JSON.stringify(value);
}

function agentOf(value: string, prefix: string): string | undefined {
  return value.startsWith(prefix) ? value.slice(prefix.length) : undefined;
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
 * The shared-context pipeline: every agent wraps its work in `SharedContext.beforeActing` and
 * `decide`, and claims modules in `SharedState` before building.
 *
 * Each agent has its own replica, brought up to date when it reads (its knowledge is what it last
 * read, as for a real agent in another process). Writes made without having seen each other are
 * therefore concurrent, and a register written concurrently is escalated, never silently won. The
 * lead Planner also has an on-duty replica that follows the store live, so it sees escalations as
 * they arise and settles the ones it may.
 */
export async function createStatewaveCoordination(
  options: StatewaveCoordinationOptions,
): Promise<Coordination> {
  const { store, subjectId, scenario, emit, clock } = options;
  const lead = scenario.agents.find((agent) => agent.role === "planner")?.id;

  if (scenario.inventory.length > 0) {
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
  }

  // Decision values live in the episodes' payloads; memories keep only content and target.
  const payloads = new Map<string, JsonObject>();
  const episodeFeed = store.watch(
    subjectId,
    (change) => {
      if (change.type === "episode") payloads.set(change.episode.id, change.episode.payload);
    },
    { replay: true },
  );

  const openReplica = (agentId: string, live: boolean) =>
    SharedState.open({
      store,
      subjectId,
      agentId,
      schema: { [projectNamespace]: { notes: "text", tags: "set" } },
      live,
      // Contenders' times in scenario milliseconds: the arbiter compares them.
      now: () => Math.round(clock.now()),
    });
  const states = new Map<string, SharedState>();
  const contexts = new Map<string, SharedContext>();
  for (const agent of scenario.agents) {
    const state = await openReplica(agent.id, false);
    states.set(agent.id, state);
    contexts.set(agent.id, new SharedContext({ store, subjectId, state }));
  }
  // The lead's on-duty replica only watches for escalations and settles them; the lead's own
  // decisions go through its working replica, which knows only what the lead has read.
  const arbiter = lead === undefined ? undefined : await openReplica(lead, true);
  const stateOf = (agentId: string): SharedState => {
    const state = states.get(agentId);
    if (!state) throw new RangeError(`no agent "${agentId}" in scenario ${scenario.name}`);
    return state;
  };
  const contextOf = (agentId: string): SharedContext => {
    const context = contexts.get(agentId);
    if (!context) throw new RangeError(`no agent "${agentId}" in scenario ${scenario.name}`);
    return context;
  };

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
  const stopAnnouncing = [...states.values(), ...(arbiter ? [arbiter] : [])].map((state) =>
    state.onEscalation(announce),
  );

  const decisionOf = (memory: Memory): KnownDecision | undefined => {
    const target = memory.metadata.target;
    const by = memory.metadata.source;
    if (typeof target !== "string" || typeof by !== "string" || by === projectSource)
      return undefined;
    const episodeId = memory.sourceEpisodeIds[memory.sourceEpisodeIds.length - 1];
    const value = episodeId === undefined ? undefined : payloads.get(episodeId)?.value;
    return {
      target,
      by,
      value: typeof value === "string" ? value : "decided",
      content: memory.content,
    };
  };

  const disputeOf = (escalation: Escalation): KnownDispute => ({
    target: escalation.key,
    contenders: escalation.contenders.map((contender) => ({
      agentId: contender.agentId,
      value: stringOf(contender.value),
    })),
  });

  /** A memory dispute as agents see it: each side with the value it decided. */
  const memoryDisputeOf = (dispute: MemoryDispute): KnownDispute => ({
    target: dispute.target,
    contenders: dispute.memories.map((memory) => ({
      agentId: typeof memory.metadata.source === "string" ? memory.metadata.source : "unknown",
      value: decisionOf(memory)?.value ?? memory.content,
    })),
  });

  /**
   * One dispute per target: the shared state's escalation and the memories' contradiction are
   * usually the same disagreement seen from two layers, so their contenders are merged.
   */
  const mergeDisputes = (disputes: readonly KnownDispute[]): KnownDispute[] => {
    const byTarget = new Map<string, KnownDispute>();
    for (const dispute of disputes) {
      const known = byTarget.get(dispute.target);
      if (known === undefined) {
        byTarget.set(dispute.target, {
          target: dispute.target,
          contenders: [...dispute.contenders],
        });
        continue;
      }
      for (const contender of dispute.contenders) {
        if (!known.contenders.some((other) => other.agentId === contender.agentId)) {
          known.contenders.push(contender);
        }
      }
    }
    return [...byTarget.values()];
  };

  const read = async (agentId: string, task: string): Promise<KnownState> => {
    const context = contextOf(agentId);
    const result = await clock.track(context.beforeActing(agentId, task));
    const decisions = result.decisions
      .map(decisionOf)
      .filter((decision): decision is KnownDecision => decision !== undefined);
    // Decision contradictions first: their sides carry the decided values ("deprecate", "keep").
    // Other kinds (the escalation summaries the shared state writes) mirror `result.disputes`.
    const disputes = mergeDisputes([
      ...result.contradictions
        .filter((dispute) => dispute.kind === "architectural_decision")
        .map(memoryDisputeOf),
      ...result.disputes.map(disputeOf),
    ]);
    for (const escalation of result.disputes) announce(escalation);
    const claims: Record<string, string> = {};
    for (const [module, value] of Object.entries(stateOf(agentId).list(modulesNamespace))) {
      const claimant = typeof value === "string" ? agentOf(value, claimedPrefix) : undefined;
      if (claimant !== undefined) claims[module] = claimant;
    }
    emit({
      type: "context-read",
      agentId,
      task,
      memoryIds: [
        ...new Set([...result.bundle.facts, ...result.decisions].map((memory) => memory.id)),
      ],
      decisions: decisions.map((decision) => `${decision.by}: ${decision.content}`),
      disputes: disputes.map(
        (dispute) =>
          `${dispute.target}: ${dispute.contenders.map((contender) => `${contender.agentId} says ${contender.value}`).join(" vs ")}`,
      ),
    });
    return { decisions, disputes, claims };
  };

  /** Waits (in scenario time) for the lead to settle an escalation; undefined when nobody does. */
  const awaitResolution = async (agentId: string, module: string): Promise<unknown> => {
    const state = stateOf(agentId);
    for (let attempt = 0; attempt < resolutionPatience; attempt += 1) {
      await clock.sleep(Math.max(1, Math.round(scenario.timings.thinkMs / 4)));
      await clock.track(state.sync());
      const value = state.get(modulesNamespace, module);
      if (!(value instanceof Disputed)) return value;
    }
    return undefined;
  };

  const claim = async (agentId: string, module: string): Promise<ClaimOutcome> => {
    const state = stateOf(agentId);
    const before = state.get(modulesNamespace, module);
    if (typeof before === "string") {
      const deprecatedBy = agentOf(before, deprecatedPrefix);
      if (deprecatedBy !== undefined) {
        return { granted: false, reason: `deprecated by ${deprecatedBy}`, causedBy: deprecatedBy };
      }
      const claimant = agentOf(before, claimedPrefix);
      if (claimant !== undefined && claimant !== agentId) {
        return { granted: false, reason: `already claimed by ${claimant}`, causedBy: claimant };
      }
    }
    emit({ type: "module-claim", agentId, module });
    const mine = `${claimedPrefix}${agentId}`;
    await clock.track(state.put(modulesNamespace, module, mine));
    await clock.track(state.sync());
    let after = state.get(modulesNamespace, module);
    if (after instanceof Disputed) {
      for (const escalation of state.escalations()) announce(escalation);
      emit({
        type: "agent-log",
        agentId,
        text: `Claim on ${module} escalated: waiting for a decision…`,
      });
      after = await awaitResolution(agentId, module);
    }
    if (after === mine) return { granted: true };
    const text = typeof after === "string" ? after : "unresolved";
    const winner =
      typeof after === "string"
        ? (agentOf(after, claimedPrefix) ?? agentOf(after, deprecatedPrefix) ?? null)
        : null;
    return { granted: false, reason: `claim escalated and settled: ${text}`, causedBy: winner };
  };

  return {
    read,
    publishDecision: async (agentId, decision) => {
      await clock.track(
        contextOf(agentId).decide(agentId, decision.content, {
          kind: "architectural_decision",
          target: decision.target,
          payload: { value: decision.value },
        }),
      );
      const state = stateOf(agentId);
      const value =
        decision.value === "deprecate" ? `${deprecatedPrefix}${agentId}` : `kept-by:${agentId}`;
      await clock.track(state.put(modulesNamespace, decision.target, value));
      await clock.track(state.sync());
    },
    claim,
    watchModule: (agentId, module, onInvalid) => {
      const stopContext = contextOf(agentId).onInvalidated(agentId, (notice) => {
        if (notice.target === module) onInvalid({ reason: notice.reason, by: notice.by });
      });
      return () => {
        stopContext();
      };
    },
    reportResult: async (agentId, result) => {
      await clock.track(
        contextOf(agentId).decide(agentId, `Built ${result.module}.`, {
          kind: "implementation_note",
          target: result.module,
          payload: { module: result.module, tokens: result.tokens, ms: result.ms },
        }),
      );
      // Notes and tags merge cleanly: concurrent appends and additions are all kept.
      const state = stateOf(agentId);
      await clock.track(state.put(projectNamespace, "notes", `${agentId} built ${result.module}`));
      await clock.track(state.put(projectNamespace, "tags", [result.module]));
    },
    collectForReview: async (agentId) => {
      const known = await read(agentId, "Review the finished work against the decisions");
      const episodes = await clock.track(allEpisodes(store, subjectId));
      const decisions: KnownDecision[] = [];
      const results: BuildResult[] = [];
      for (const episode of episodes) {
        const { payload } = episode;
        if (
          episode.type === "architectural_decision" &&
          episode.source !== projectSource &&
          typeof payload.target === "string"
        ) {
          decisions.push({
            target: payload.target,
            value: typeof payload.value === "string" ? payload.value : "decided",
            by: episode.source,
            content: typeof payload.content === "string" ? payload.content : "",
          });
        }
        if (episode.type === "implementation_note" && typeof payload.module === "string") {
          results.push({
            module: payload.module,
            agentId: episode.source,
            tokens: Number(payload.tokens),
            ms: Number(payload.ms),
          });
        }
      }
      return { decisions, results, disputes: known.disputes };
    },
    arbitrate: async (agentId, choose, until) => {
      const state = agentId === lead && arbiter ? arbiter : stateOf(agentId);
      const settle = async (escalation: Escalation) => {
        if (escalation.resolution !== undefined) return;
        const request = {
          escalationId: escalation.id,
          key: escalation.key,
          contenders: escalation.contenders.map((contender) => ({
            agentId: contender.agentId,
            value: stringOf(contender.value),
            at: contender.at,
          })),
        };
        const winner = choose(request);
        if (winner === undefined) return;
        await clock.track(state.resolve(escalation.id, winner, { by: agentId }));
        emit({
          type: "escalation-resolve",
          escalationId: escalation.id,
          by: agentId,
          value: winner,
        });
      };
      // A settle can fail long before `until` settles: catch it at once (else it is an unhandled
      // rejection) and rethrow the first failure afterwards, so the run still fails clearly.
      const failures: unknown[] = [];
      const record = (error: unknown): void => {
        failures.push(error);
      };
      const pending: Promise<void>[] = [];
      const stop = state.onEscalation((escalation) => {
        pending.push(settle(escalation).catch(record));
      });
      for (const escalation of state.escalations()) pending.push(settle(escalation).catch(record));
      try {
        await until;
      } finally {
        stop();
        await Promise.all(pending);
      }
      if (failures.length > 0) throw failures[0];
    },
    close: async () => {
      for (const stop of stopAnnouncing) stop();
      episodeFeed.close();
      for (const context of contexts.values()) await context.close();
      for (const state of states.values()) await state.close();
      await arbiter?.close();
    },
  };
}
