import { checkExhaustive } from "../../errors.js";
import type {
  AgentInfo,
  RunMode,
  RunSummary,
  ScenarioEvent,
} from "../../scenario/scenario-events.js";
import { createAgentDirectory } from "../format/agent-directory.js";
import { describeEvent, type EventLine, type LineTone } from "../format/event-line.js";
import {
  contradictionMoment,
  isRetiringDecision,
  type PaneMoment,
  preventedMoment,
  type SeenDecision,
} from "../format/moment.js";

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
  /** The moment the pane holds on screen until its verdict (a doomed build, a skip or cancel). */
  readonly moment?: PaneMoment;
  /** Decisions seen so far, by target (scenario time relative to run-start). */
  readonly decisions: Readonly<Record<string, SeenDecision>>;
  /** Builds in progress, by module: who builds it and the index of its "Building →" line. */
  readonly building: Readonly<Record<string, { readonly agentId: string; readonly line: number }>>;
  /** run-start's scenario time. */
  readonly startAt: number;
}

/** What can happen to a pane: its run emitted an event, or failed before its end. */
export type RunPaneAction =
  | { readonly type: "run-event"; readonly event: ScenarioEvent }
  | { readonly type: "run-fail"; readonly message: string };

/** The pane before its run has said anything. */
export function initialRunPaneState(mode: RunMode): RunPaneState {
  return {
    mode,
    agents: [],
    statuses: {},
    lines: [],
    events: [],
    decisions: {},
    building: {},
    startAt: 0,
  };
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
    case "module-hold":
      return status(event.agentId, `holding ${event.module} (disputed)`, true, "warning");
    case "module-resume":
      return status(event.agentId, `resumed ${event.module}`, true);
    case "collision":
      return status(event.detectedBy, `found a collision on ${event.module}`, true, "error");
    case "agent-restart":
      return status(event.agentId, "restarted after a crash", true, "warning");
    case "agent-end":
      return status(event.agentId, "done", false, "muted");
    case "coordinator-restart":
    case "run-start":
    case "escalation":
    case "escalation-resolve":
    case "run-end":
      return undefined;
    default:
      return checkExhaustive(event);
  }
}

/** A line flagged as contradicting a decision: red, and saying whose. */
function flagLine(line: EventLine, decider: string): EventLine {
  return line.tone === "error"
    ? line
    : { ...line, tone: "error", text: `${line.text} ✖ contradicts ${decider}'s decision` };
}

/**
 * Tracks decisions and builds, and sets the held moment: a build that contradicts a retiring
 * decision (when it starts after the decision, or when the decision lands mid-build) flags its
 * line red; a skip or a cancel is held highlighted until the verdict.
 */
function trackMoment(state: RunPaneState, event: ScenarioEvent): RunPaneState {
  const agents = createAgentDirectory(state.agents);
  const lineIndex = state.lines.length - 1;
  switch (event.type) {
    case "decision-write": {
      const decision = { agentId: event.agentId, value: event.value, at: event.at - state.startAt };
      let next: RunPaneState = {
        ...state,
        decisions: { ...state.decisions, [event.target]: decision },
      };
      const build = state.building[event.target];
      if (build && isRetiringDecision(event.value)) {
        const moment = contradictionMoment(event.target, build.agentId, decision, event.at, agents);
        const lines = [...next.lines];
        const line = lines[build.line];
        if (line) lines[build.line] = flagLine(line, agents.name(event.agentId));
        next = { ...next, moment, lines };
      }
      return next;
    }
    case "module-start": {
      const next = {
        ...state,
        building: {
          ...state.building,
          [event.module]: { agentId: event.agentId, line: lineIndex },
        },
      };
      const decision = state.decisions[event.module];
      if (!decision || !isRetiringDecision(decision.value)) return next;
      const moment = contradictionMoment(event.module, event.agentId, decision, event.at, agents);
      const lines = [...next.lines];
      const line = lines[lineIndex];
      if (line) lines[lineIndex] = flagLine(line, agents.name(decision.agentId));
      return { ...next, moment, lines };
    }
    case "module-end": {
      const { [event.module]: _ended, ...building } = state.building;
      return { ...state, building };
    }
    case "module-skip":
    case "module-cancel": {
      const { [event.module]: _stopped, ...building } = state.building;
      const moment = preventedMoment(event, state.startAt, agents);
      return { ...state, building, ...(moment ? { moment } : {}) };
    }
    default:
      return state;
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
      mode: event.mode,
      startAt: event.at,
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
  return trackMoment(next, event);
}
