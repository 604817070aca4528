import type { ScenarioEvent } from "../../scenario/scenario-events.js";
import type { AgentDirectory } from "./agent-directory.js";
import { formatRelative } from "./duration.js";
import { shortReason } from "./event-line.js";

/**
 * The moment a pane holds on screen until its verdict: work that started contradicting a decision
 * (red), or work the pipeline stopped because of one (highlighted). It is decided by what
 * happened, never by the pane's mode, so any pipeline (naive, broadcast, shared context) shows the
 * moment it actually had.
 */
export interface PaneMoment {
  readonly kind: "contradiction" | "prevented";
  /** The module the moment is about. */
  readonly module: string;
  /** One line: "✖ Coder builds legacy-session-token although Planner deprecated it at T+2.7s". */
  readonly text: string;
  /** Scenario time of the event that made the moment. */
  readonly at: number;
}

/** A decision a pipeline has seen, by its target. */
export interface SeenDecision {
  readonly agentId: string;
  readonly value: string;
  /** Scenario time since the run started. */
  readonly at: number;
}

/** True for decisions that make building their target wasted work ("deprecate"). */
export function isRetiringDecision(value: string): boolean {
  return /^deprecat/i.test(value.trim());
}

/** "deprecated" for "deprecate", else "decided <value> on". */
function decidedPhrase(value: string): string {
  return isRetiringDecision(value) ? "deprecated" : `decided "${value}" for`;
}

/**
 * The contradiction when `agentId` builds `module` although a retiring decision about it exists:
 * the left pane's doomed build, flagged the instant it starts contradicting (its start after the
 * decision, or the decision landing mid-build).
 */
export function contradictionMoment(
  module: string,
  builderId: string,
  decision: SeenDecision,
  at: number,
  agents: AgentDirectory,
): PaneMoment {
  return {
    kind: "contradiction",
    module,
    at,
    text: `✖ ${agents.name(builderId)} builds ${module} although ${agents.name(decision.agentId)} ${decidedPhrase(decision.value)} it at ${formatRelative(decision.at)}`,
  };
}

/** The prevented moment of a skip or a cancel, or undefined for any other event. */
export function preventedMoment(
  event: ScenarioEvent,
  startAt: number,
  agents: AgentDirectory,
): PaneMoment | undefined {
  if (event.type !== "module-skip" && event.type !== "module-cancel") return undefined;
  const verb = event.type === "module-skip" ? "skipped" : "stopped building";
  return {
    kind: "prevented",
    module: event.module,
    at: event.at,
    // The mechanism that made the difference, once the pipeline names it.
    text: `✔ ${agents.name(event.agentId)} ${verb} ${event.module} at ${formatRelative(event.at - startAt)}: ${shortReason(event.reason, event.module, agents)}${event.mechanism ? ` (${event.mechanism})` : ""}`,
  };
}
