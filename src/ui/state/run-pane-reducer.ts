import { checkExhaustive } from "../../errors.js";
import type {
  AgentInfo,
  RunMode,
  RunSummary,
  ScenarioEvent,
} from "../../scenario/scenario-events.js";
import { createAgentDirectory } from "../format/agent-directory.js";
import { describeEvent, type EventLine, type LineTone } from "../format/event-line.js";

/** What one agent is doing now, for its status row. */
export interface AgentStatus {
  /** The agent the row is about. */
  readonly agentId: string;
  /** "building session-store", "waiting", "done". */
  readonly activity: string;
  /** True while work is in progress: the row shows a spinner. */
  readonly busy: boolean;
  /** How the activity reads (colour in the views). */
  readonly tone: LineTone;
}

/** Everything one pipeline's pane shows, derived only from its events. */
export interface RunPaneState {
  /** Which pipeline the pane shows. */
  readonly mode: RunMode;
  /** From run-start on. */
  readonly runId?: string;
  /** The scenario's name, from run-start on. */
  readonly scenario?: string;
  /** Who thinks for the agents: "offline (deterministic)" or the model's name, from run-start on. */
  readonly brain?: string;
  /** The agents run-start announced, in order. */
  readonly agents: readonly AgentInfo[];
  /** Each agent's status row, by agent id. */
  readonly statuses: Readonly<Record<string, AgentStatus>>;
  /** One line per event (run-start and run-end excepted: the header and verdict show them). */
  readonly lines: readonly EventLine[];
  /** Every event so far, in order: the verdict and the timeline are built from them. */
  readonly events: readonly ScenarioEvent[];
  /** Set when the run has ended. */
  readonly summary?: RunSummary;
  /** Set when the run failed before its end (the pane shows it instead of a verdict). */
  readonly error?: string;
}

/** What can happen to a pane: its run emitted an event, or failed before its end. */
export type RunPaneAction =
  | { readonly type: "run-event"; readonly event: ScenarioEvent }
  | { readonly type: "run-fail"; readonly message: string };

/** The pane before its run has said anything. */
export function initialRunPaneState(mode: RunMode): RunPaneState {
  return { mode, agents: [], statuses: {}, lines: [], events: [] };
}

function status(
  agentId: string,
  activity: string,
  busy: boolean,
  tone: LineTone = "normal",
): AgentStatus {
  return { agentId, activity, busy, tone };
}

/** The status change an event causes, if any. */
function statusFor(event: ScenarioEvent): AgentStatus | undefined {
  switch (event.type) {
    case "agent-start":
      return status(event.agentId, "starting", true);
    case "agent-log":
      return status(event.agentId, event.text, true);
    case "context-read":
      return status(event.agentId, "read the shared context", true, "muted");
    case "message-send":
      return status(event.from, "sent a message", true);
    case "decision-write":
      return status(event.agentId, `decided: ${event.value} ${event.target}`, true, "decision");
    case "module-claim":
      return status(event.agentId, `claimed ${event.module}`, true);
    case "module-start":
      return status(event.agentId, `building ${event.module}`, true);
    case "module-end":
      return status(event.agentId, `built ${event.module}`, true, "success");
    case "module-skip":
      return status(event.agentId, `skipped ${event.module}`, true, "skip");
    case "module-cancel":
      return status(event.agentId, `cancelled ${event.module}`, true, "warning");
    case "collision":
      return status(event.detectedBy, `found a collision on ${event.module}`, true, "error");
    case "agent-end":
      return status(event.agentId, "done", false, "muted");
    case "run-start":
    case "escalation":
    case "escalation-resolve":
    case "run-end":
      return undefined;
    default:
      return checkExhaustive(event);
  }
}

/** Folds one event (or a failure) into the pane's state. Pure. */
export function runPaneReducer(state: RunPaneState, action: RunPaneAction): RunPaneState {
  if (action.type === "run-fail") return { ...state, error: action.message };
  const event = action.event;
  let next: RunPaneState = { ...state, events: [...state.events, event] };
  if (event.type === "run-start") {
    next = {
      ...next,
      runId: event.runId,
      scenario: event.scenario,
      brain: event.brain,
      agents: event.agents,
      statuses: Object.fromEntries(
        event.agents.map((agent) => [agent.id, status(agent.id, "waiting", false, "muted")]),
      ),
    };
  }
  if (event.type === "run-end") {
    // Whoever has not said "done" stopped with the run.
    next = {
      ...next,
      summary: event.summary,
      statuses: Object.fromEntries(
        Object.entries(next.statuses).map(([id, value]) => [
          id,
          value.busy ? { ...value, busy: false } : value,
        ]),
      ),
    };
  }
  const changed = statusFor(event);
  if (changed) next = { ...next, statuses: { ...next.statuses, [changed.agentId]: changed } };
  // The run's own start and end lines are shown as the pane's header and verdict instead.
  if (event.type !== "run-start" && event.type !== "run-end") {
    next = {
      ...next,
      lines: [...next.lines, describeEvent(event, createAgentDirectory(next.agents))],
    };
  }
  return next;
}
