import type {
  CollisionCause,
  Mechanism,
  ModuleJudgement,
  RefereeDispute,
  RefereeReport,
  RefereeVerdict,
  ScenarioEvent,
  StaleAction,
} from "../../coordination/run-events.js";
import { collisionCauseOf } from "../attribute-collision.js";
import {
  activeDecisions,
  type DecisionRecord,
  decisionHistory,
  effectiveFate,
  type Fate,
  fateOf,
  retiringDecision,
  rulingDecisions,
} from "./decision-history.js";

type EventOf<Type extends ScenarioEvent["type"]> = Extract<ScenarioEvent, { type: Type }>;

/** The referee's report, plus what the summary derives from it. */
export interface RunJudgement extends RefereeReport {
  /** Tokens and scenario ms wasted: builds in vain, extra builds, and every build cut short. */
  readonly wasted: { readonly tokens: number; readonly ms: number };
  /** Skips and cancels the final state justifies, each with the mechanism that caused it. */
  readonly avoided: readonly { readonly module: string; readonly mechanism: Mechanism | null }[];
  /** Why the first wasted module was wasted (null when none was). */
  readonly collisionCause: CollisionCause | null;
}

interface ModuleWork {
  plannedBy: Set<string>;
  builds: EventOf<"module-end">[];
  cancels: EventOf<"module-cancel">[];
  skips: EventOf<"module-skip">[];
  holds: EventOf<"module-hold">[];
}

function dependencyMap(events: readonly ScenarioEvent[]): Map<string, readonly string[]> {
  const start = events.find((event): event is EventOf<"run-start"> => event.type === "run-start");
  return new Map(Object.entries(start?.dependsOn ?? {}));
}

/** A module nobody has planned or touched yet. */
function untouched(): ModuleWork {
  return { plannedBy: new Set(), builds: [], cancels: [], skips: [], holds: [] };
}

/** Every module planned (a Coder's `plan`) or touched (claimed, started, built, skipped, cut short). */
function workByModule(events: readonly ScenarioEvent[]): Map<string, ModuleWork> {
  const work = new Map<string, ModuleWork>();
  /** The work on the event's module, with the event's agent among those who planned it. */
  const plannedBy = ({ module, agentId }: { module: string; agentId: string }): ModuleWork => {
    let found = work.get(module);
    if (found === undefined) {
      found = untouched();
      work.set(module, found);
    }
    found.plannedBy.add(agentId);
    return found;
  };
  for (const event of events) {
    switch (event.type) {
      case "agent-log":
        for (const module of event.plan ?? []) plannedBy({ module, agentId: event.agentId });
        break;
      case "module-claim":
      case "module-start":
        plannedBy(event);
        break;
      case "module-end":
        plannedBy(event).builds.push(event);
        break;
      case "module-cancel":
        plannedBy(event).cancels.push(event);
        break;
      case "module-skip":
        plannedBy(event).skips.push(event);
        break;
      // A hold is neither a build nor a cut: the build it paused ends in one or the other.
      case "module-hold":
        plannedBy(event).holds.push(event);
        break;
      default:
        break;
    }
  }
  return work;
}

/**
 * A replacement moves the planned work: whoever planned a module the final state replaces
 * (`value: replace, by: X`) has X to build instead.
 */
function addReplacements(
  work: Map<string, ModuleWork>,
  active: ReadonlyMap<string, readonly DecisionRecord[]>,
): void {
  for (const [target, standing] of active) {
    const decision = rulingDecisions(standing)[0];
    if (fateOf(standing) !== "retired" || decision?.replacement === undefined) continue;
    const planners = work.get(target)?.plannedBy ?? new Set<string>();
    if (planners.size === 0) continue;
    const moved = work.get(decision.replacement) ?? untouched();
    for (const planner of planners) moved.plannedBy.add(planner);
    work.set(decision.replacement, moved);
  }
}

function outcomeOf(fate: Fate, work: ModuleWork): ModuleJudgement["outcome"] {
  if (fate === "disputed") return "open";
  if (fate === "retired") return work.builds.length > 0 ? "wasted" : "ok";
  if (work.builds.length > 1) return "wasted";
  return work.builds.length === 0 && work.plannedBy.size > 0 ? "dropped" : "ok";
}

/** A skip or cancel is an avoided conflict only when the final state says the work was not needed. */
function justified(fate: Fate, work: ModuleWork, agentId: string): boolean {
  if (fate === "retired" || fate === "disputed") return true;
  return work.builds.some((build) => build.agentId !== agentId);
}

function staleActionsOf(
  events: readonly ScenarioEvent[],
  history: readonly DecisionRecord[],
  dependsOn: ReadonlyMap<string, readonly string[]>,
  planners: ReadonlySet<string>,
): StaleAction[] {
  const stale: StaleAction[] = [];
  events.forEach((event, position) => {
    if (
      event.type !== "module-start" &&
      event.type !== "module-resume" &&
      event.type !== "module-skip"
    ) {
      return;
    }
    const fate = effectiveFate(event.module, activeDecisions(history, position), dependsOn);
    // Resuming held work is building again: on a module retired or still disputed, it is stale.
    const startedOnRetired =
      event.type !== "module-skip" && (fate === "retired" || fate === "disputed");
    // A skip caused by a decision (not by a claim) on a module the decisions standing then kept.
    const skippedOnOverruled =
      event.type === "module-skip" &&
      event.causedBy !== null &&
      planners.has(event.causedBy) &&
      (fate === "kept" || fate === "undecided");
    if (!startedOnRetired && !skippedOnOverruled) return;
    stale.push({
      agentId: event.agentId,
      module: event.module,
      at: event.at,
      action: event.type === "module-skip" ? "skip" : "build",
      fateAtTheTime: fate,
    });
  });
  return stale;
}

function openDisputesOf(active: ReadonlyMap<string, readonly DecisionRecord[]>): RefereeDispute[] {
  const disputes: RefereeDispute[] = [];
  for (const [target, standing] of active) {
    if (fateOf(standing) !== "disputed") continue;
    disputes.push({
      target,
      contenders: rulingDecisions(standing).map((decision) => ({
        agentId: decision.by,
        value: decision.value,
      })),
    });
  }
  return disputes.sort((a, b) => a.target.localeCompare(b.target));
}

function causeOf(
  events: readonly ScenarioEvent[],
  module: string,
  work: ModuleWork,
  retiring: DecisionRecord | undefined,
): CollisionCause {
  const builders = [...new Set(work.builds.map((build) => build.agentId))];
  // One agent building a module twice raced nobody: it forgot (a restart) what it had built.
  if (retiring === undefined)
    return builders.length === 1 ? "history for a late joiner" : "atomic claim";
  return collisionCauseOf(events, {
    module,
    agents: [retiring.by, ...builders],
    duplicate: false,
    decisionPosition: retiring.position,
  });
}

function verdictOf(wasted: number, dropped: number, disputes: number): RefereeVerdict {
  if (wasted > 0 || dropped > 0) return "collision";
  return disputes > 0 ? "unresolved" : "clean";
}

/**
 * The referee: judges a run from its events alone (its decisions, what each agent read, what it
 * built, skipped and cut short), the same way whatever the mode. Every module planned or touched
 * is judged against the final authoritative decision state (see docs/runner.md, *The referee*):
 * work on a retired module is wasted, a kept module planned and never built is dropped, a module
 * still disputed leaves the run unresolved. Pure: the same events give the same judgement.
 */
export function judgeRun(events: readonly ScenarioEvent[]): RunJudgement {
  const history = decisionHistory(events);
  const active = activeDecisions(history);
  const dependsOn = dependencyMap(events);
  const work = workByModule(events);
  addReplacements(work, active);
  const start = events.find((event): event is EventOf<"run-start"> => event.type === "run-start");
  const planners = new Set(
    (start?.agents ?? []).filter((agent) => agent.role === "planner").map((agent) => agent.id),
  );
  for (const decision of history) planners.add(decision.by);

  const modules: ModuleJudgement[] = [];
  const avoided: Array<{ module: string; mechanism: Mechanism | null }> = [];
  let tokens = 0;
  let ms = 0;
  let collisionCause: CollisionCause | null = null;
  for (const module of [...work.keys()].sort()) {
    const moduleWork = work.get(module) as ModuleWork;
    const fate = effectiveFate(module, active, dependsOn);
    const outcome = outcomeOf(fate, moduleWork);
    for (const cancel of moduleWork.cancels) {
      tokens += cancel.tokensSpent;
      ms += cancel.msSpent;
      // A build lost in a crash was stopped by nothing the team decided: it avoided nothing.
      if (cancel.causedBy !== null && justified(fate, moduleWork, cancel.agentId)) {
        avoided.push({ module, mechanism: cancel.mechanism ?? "mid-build invalidation" });
      }
    }
    for (const skip of moduleWork.skips) {
      if (skip.causedBy !== null && justified(fate, moduleWork, skip.agentId)) {
        avoided.push({ module, mechanism: skip.mechanism ?? null });
      }
    }
    if (outcome === "wasted") {
      // Retired: every build was in vain; built twice: all but the first.
      const inVain = fate === "retired" ? moduleWork.builds : moduleWork.builds.slice(1);
      for (const build of inVain) {
        tokens += build.tokens;
        ms += build.ms;
      }
      const retiring = fate === "retired" ? retiringDecision(module, active, dependsOn) : undefined;
      collisionCause ??= causeOf(events, module, moduleWork, retiring);
    }
    modules.push({
      module,
      fate,
      plannedBy: [...moduleWork.plannedBy].sort(),
      built: moduleWork.builds.length,
      cancelled: moduleWork.cancels.length,
      skipped: moduleWork.skips.length,
      ...(moduleWork.holds.length > 0 ? { held: moduleWork.holds.length } : {}),
      outcome,
    });
  }
  const wastedModules = modules
    .filter((judged) => judged.outcome === "wasted")
    .map((judged) => judged.module);
  const droppedModules = modules
    .filter((judged) => judged.outcome === "dropped")
    .map((judged) => judged.module);
  const openDisputes = openDisputesOf(active);
  return {
    verdict: verdictOf(wastedModules.length, droppedModules.length, openDisputes.length),
    wastedModules,
    droppedModules,
    openDisputes,
    staleActions: staleActionsOf(events, history, dependsOn, planners),
    modules,
    wasted: { tokens, ms },
    avoided,
    collisionCause,
  };
}

/** The part of a judgement `run --json` and the summary carry as `referee`. */
export function refereeReportOf(judgement: RunJudgement): RefereeReport {
  const { verdict, wastedModules, droppedModules, openDisputes, staleActions, modules } = judgement;
  return { verdict, wastedModules, droppedModules, openDisputes, staleActions, modules };
}
