import type {
  CollisionCause,
  Mechanism,
  RunMode,
  RunSummary,
  ScenarioEvent,
} from "./scenario-events.js";

/** What the summary needs besides the events. */
export interface SummaryContext {
  runId: string;
  mode: RunMode;
  scenario: string;
  task: string;
  brain: string;
  /** Tokens spent thinking and reviewing (builds are counted from their events). */
  thinkingTokens: number;
  /** Scenario milliseconds from run start to run end. */
  endAt: number;
  /** Whether the brain gives the same answers every time. @default true */
  reproducible?: boolean;
}

/**
 * The run summary, computed from the events alone (plus thinking tokens), so that whoever
 * replays a run from the store gets the same figures.
 */
export function summarizeRun(
  events: readonly ScenarioEvent[],
  context: SummaryContext,
): RunSummary {
  let buildTokens = 0;
  let wastedTokens = 0;
  let wastedMs = 0;
  let conflictsAvoided = 0;
  const avoidedBy: Partial<Record<Mechanism, number>> = {};
  const avoid = (mechanism: Mechanism | null | undefined) => {
    conflictsAvoided += 1;
    if (mechanism) avoidedBy[mechanism] = (avoidedBy[mechanism] ?? 0) + 1;
  };
  let collisionCause: CollisionCause | null = null;
  let openDisputes = 0;
  const read = { tokens: 0, largest: 0, reads: 0 };
  const escalationIds = new Set<string>();
  const wastedModules = new Set<string>();
  let collision = false;
  for (const event of events) {
    switch (event.type) {
      case "module-end":
        buildTokens += event.tokens;
        break;
      case "module-cancel":
        buildTokens += event.tokensSpent;
        wastedTokens += event.tokensSpent;
        wastedMs += event.msSpent;
        avoid(event.mechanism ?? "mid-build invalidation");
        break;
      case "module-skip":
        if (event.causedBy !== null) avoid(event.mechanism);
        break;
      case "context-read":
        read.tokens += event.tokens ?? 0;
        read.largest = Math.max(read.largest, event.tokens ?? 0);
        read.reads += 1;
        break;
      case "agent-log":
        if (event.openDispute !== undefined) openDisputes += 1;
        break;
      case "escalation":
        escalationIds.add(event.escalationId);
        break;
      case "collision":
        collision = true;
        collisionCause ??= event.cause ?? null;
        wastedModules.add(event.module);
        wastedTokens += event.wastedTokens;
        wastedMs += event.wastedMs;
        break;
    }
  }
  const modules = [...wastedModules].sort();
  return {
    runId: context.runId,
    mode: context.mode,
    scenario: context.scenario,
    task: context.task,
    brain: context.brain,
    collision,
    conflictsAvoided,
    avoidedBy,
    collisionCause,
    escalations: escalationIds.size,
    openDisputes,
    read,
    reproducible: context.reproducible ?? true,
    wasted: { modules: modules.length, tokens: wastedTokens, ms: wastedMs },
    totals: { tokens: context.thinkingTokens + buildTokens, ms: context.endAt },
    wastedModules: modules,
  };
}
