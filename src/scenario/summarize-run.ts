import { judgeRun, refereeReportOf } from "./referee/judge-run.js";
import type { Mechanism, RunCost, RunMode, RunSummary, ScenarioEvent } from "./scenario-events.js";

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
  /** The run's cost under the one rule (`CostMeter`). @default not measured */
  cost?: RunCost;
}

/**
 * The run summary, computed from the events alone (plus thinking tokens), so that whoever
 * replays a run from the store gets the same figures. Collision, waste, avoided conflicts and open
 * disputes are the referee's (`judgeRun`), never a Reviewer's: every mode is judged alike.
 */
export function summarizeRun(
  events: readonly ScenarioEvent[],
  context: SummaryContext,
): RunSummary {
  const judgement = judgeRun(events);
  let buildTokens = 0;
  let messages = 0;
  const read = { tokens: 0, largest: 0, reads: 0 };
  const escalationIds = new Set<string>();
  const restarts: string[] = [];
  for (const event of events) {
    switch (event.type) {
      case "module-end":
        buildTokens += event.tokens;
        break;
      case "module-cancel":
        buildTokens += event.tokensSpent;
        break;
      case "context-read":
        read.tokens += event.tokens ?? 0;
        read.largest = Math.max(read.largest, event.tokens ?? 0);
        read.reads += 1;
        break;
      case "message-send":
        messages += 1;
        break;
      case "escalation":
        escalationIds.add(event.escalationId);
        break;
      case "coordinator-restart":
        restarts.push(event.lost);
        break;
    }
  }
  const avoidedBy: Partial<Record<Mechanism, number>> = {};
  for (const { mechanism } of judgement.avoided) {
    if (mechanism) avoidedBy[mechanism] = (avoidedBy[mechanism] ?? 0) + 1;
  }
  const collision = judgement.verdict === "collision";
  return {
    runId: context.runId,
    mode: context.mode,
    scenario: context.scenario,
    task: context.task,
    brain: context.brain,
    collision,
    conflictsAvoided: judgement.avoided.length,
    avoidedBy,
    collisionCause: collision ? judgement.collisionCause : null,
    escalations: escalationIds.size,
    openDisputes: judgement.openDisputes.length,
    read,
    reproducible: context.reproducible ?? true,
    wasted: {
      modules: judgement.wastedModules.length,
      tokens: judgement.wasted.tokens,
      ms: judgement.wasted.ms,
    },
    totals: { tokens: context.thinkingTokens + buildTokens, ms: context.endAt },
    wastedModules: judgement.wastedModules,
    messages,
    ...(context.cost ? { cost: context.cost } : {}),
    ...(restarts.length > 0 ? { coordinatorRestarts: restarts } : {}),
    referee: refereeReportOf(judgement),
  };
}
