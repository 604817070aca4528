import { checkExhaustive } from "../../errors.js";
import type { RunMode, ScenarioEvent } from "../../scenario/scenario-events.js";
import type { RunTimeline } from "../format/run-timeline.js";
import { initialRunPaneState, type RunPaneState, runPaneReducer } from "./run-pane-reducer.js";

/** Which screen the demo shows. */
export type DemoView = "panes" | "timeline" | "scenario-picker";

/** The timeline screen's data, as it loads. */
export type TimelineLoad =
  | { readonly status: "loading"; readonly runId: string }
  | { readonly status: "ready"; readonly timeline: RunTimeline; readonly scroll: number }
  | { readonly status: "failed"; readonly message: string };

/** Everything the demo screen shows, derived only from actions (keys, run events, loads). */
export interface DemoState {
  /** The scenario both pipelines run: a shipped name or a path. */
  readonly scenario: string;
  /** Increments on every (re)start: the hook that runs the pipelines restarts when it changes. */
  readonly round: number;
  /** The screen shown now. */
  readonly view: DemoView;
  /** One pane per pipeline. */
  readonly panes: Readonly<Record<RunMode, RunPaneState>>;
  /** The shared-context run's timeline, once `t` asked for it. */
  readonly timeline?: TimelineLoad;
  /** Highlighted entry of the scenario picker. */
  readonly pickerIndex: number;
}

/**
 * What can happen to the demo: a pipeline's event or failure (`run-*`), a key (`restart`,
 * `timeline-open`, `timeline-scroll`, `picker-*`, `view-close`) or a timeline load finishing.
 */
export type DemoAction =
  | { readonly type: "run-event"; readonly mode: RunMode; readonly event: ScenarioEvent }
  | { readonly type: "run-fail"; readonly mode: RunMode; readonly message: string }
  | { readonly type: "restart"; readonly scenario?: string }
  | { readonly type: "timeline-open"; readonly runId: string }
  | { readonly type: "timeline-load"; readonly timeline: RunTimeline }
  | { readonly type: "timeline-fail"; readonly message: string }
  | { readonly type: "timeline-scroll"; readonly delta: number; readonly maxScroll: number }
  | { readonly type: "picker-open" }
  | { readonly type: "picker-move"; readonly delta: number; readonly count: number }
  | { readonly type: "view-close" };

/** The demo as it starts: both panes empty, round 0. */
export function initialDemoState(scenario: string): DemoState {
  return {
    scenario,
    round: 0,
    view: "panes",
    panes: { naive: initialRunPaneState("naive"), statewave: initialRunPaneState("statewave") },
    pickerIndex: 0,
  };
}

/** True once both pipelines have ended (or failed). */
export function bothRunsFinished(state: DemoState): boolean {
  return Object.values(state.panes).every(
    (pane) => pane.summary !== undefined || pane.error !== undefined,
  );
}

function clamp(value: number, min: number, max: number): number {
  return Math.min(Math.max(value, min), Math.max(min, max));
}

/** The demo's state machine. Pure: keys and run events come in as actions. */
export function demoReducer(state: DemoState, action: DemoAction): DemoState {
  switch (action.type) {
    case "run-event":
      return {
        ...state,
        panes: {
          ...state.panes,
          [action.mode]: runPaneReducer(state.panes[action.mode], action),
        },
      };
    case "run-fail":
      return {
        ...state,
        panes: {
          ...state.panes,
          [action.mode]: runPaneReducer(state.panes[action.mode], action),
        },
      };
    case "restart":
      return {
        ...initialDemoState(action.scenario ?? state.scenario),
        round: state.round + 1,
        pickerIndex: state.pickerIndex,
      };
    case "timeline-open":
      return { ...state, view: "timeline", timeline: { status: "loading", runId: action.runId } };
    case "timeline-load":
      return { ...state, timeline: { status: "ready", timeline: action.timeline, scroll: 0 } };
    case "timeline-fail":
      return { ...state, timeline: { status: "failed", message: action.message } };
    case "timeline-scroll":
      if (state.timeline?.status !== "ready") return state;
      return {
        ...state,
        timeline: {
          ...state.timeline,
          scroll: clamp(state.timeline.scroll + action.delta, 0, action.maxScroll),
        },
      };
    case "picker-open":
      return { ...state, view: "scenario-picker" };
    case "picker-move":
      return {
        ...state,
        pickerIndex:
          action.count > 0 ? (state.pickerIndex + action.delta + action.count) % action.count : 0,
      };
    case "view-close":
      return { ...state, view: "panes" };
    default:
      return checkExhaustive(action);
  }
}
