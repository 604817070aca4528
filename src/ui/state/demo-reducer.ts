import { checkExhaustive } from "../../errors.js";
import type { RunMode, ScenarioEvent } from "../../scenario/scenario-events.js";
import type { ScenarioFocus } from "../format/caption.js";
import type { RunTimeline } from "../format/run-timeline.js";
import { initialRunPaneState, type RunPaneState, runPaneReducer } from "./run-pane-reducer.js";

/** Which screen the demo shows. */
export type DemoView = "panes" | "timeline" | "scenario-picker" | "help" | "comparison";

/**
 * The demo's two sides: the baseline on the left (message passing: `naive` or `broadcast`) and
 * the shared context on the right. Each pane knows its own mode from its run-start, so a new
 * baseline mode needs no new side.
 */
export type PaneSide = "baseline" | "shared";

/** The sides in the order they are drawn. */
export const paneSides: readonly PaneSide[] = ["baseline", "shared"];

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
  /** One pane per side. */
  readonly panes: Readonly<Record<PaneSide, RunPaneState>>;
  /** The left pane's mode before its run-start arrives (its title from the first frame on). */
  readonly baselineMode: RunMode;
  /** The shared-context run's timeline, once `t` asked for it. */
  readonly timeline?: TimelineLoad;
  /** Highlighted entry of the scenario picker. */
  readonly pickerIndex: number;
  /** What was typed in the picker so far (type-ahead), cleared on a pause or a move. */
  readonly pickerQuery: string;
  /** The view the help overlay (`?`) returns to. */
  readonly helpReturn?: Exclude<DemoView, "help">;
  /** What the caption tells the viewer to watch this round. */
  readonly focus?: ScenarioFocus;
  /**
   * Set by `q` (`quit`) or Ctrl-C (`interrupt`): the live frame goes and the demo exits with its
   * panes (renderDemo prints the ending). False while the demo runs.
   */
  readonly quitting: false | "quit" | "interrupt";
}

/**
 * What can happen to the demo: a pipeline's event or failure (`run-*`), a key (`restart`,
 * `timeline-open`, `timeline-scroll`, `picker-*`, `view-close`) or a timeline load finishing.
 */
export type DemoAction =
  | { readonly type: "run-event"; readonly side: PaneSide; readonly event: ScenarioEvent }
  | { readonly type: "run-fail"; readonly side: PaneSide; readonly message: string }
  | { readonly type: "restart"; readonly scenario?: string }
  | { readonly type: "focus-set"; readonly focus: ScenarioFocus }
  | { readonly type: "timeline-open"; readonly runId: string }
  | { readonly type: "timeline-load"; readonly timeline: RunTimeline }
  | { readonly type: "timeline-fail"; readonly message: string }
  | { readonly type: "timeline-scroll"; readonly delta: number; readonly maxScroll: number }
  | { readonly type: "picker-open"; readonly names: readonly string[] }
  | { readonly type: "picker-move"; readonly delta: number; readonly count: number }
  | { readonly type: "picker-type"; readonly text: string; readonly names: readonly string[] }
  | { readonly type: "picker-type-reset" }
  | { readonly type: "help-toggle" }
  | { readonly type: "comparison-toggle" }
  | { readonly type: "quit"; readonly ending: "quit" | "interrupt" }
  | { readonly type: "view-close" };

/**
 * The demo as it starts: both panes empty, round 0.
 * @param baselineMode the left pane's mode (`--baseline`), so its title is right before its
 *   run-start arrives. @default "naive"
 */
export function initialDemoState(scenario: string, baselineMode: RunMode = "naive"): DemoState {
  return {
    scenario,
    round: 0,
    view: "panes",
    baselineMode,
    panes: {
      baseline: initialRunPaneState(baselineMode),
      shared: initialRunPaneState("statewave"),
    },
    pickerIndex: 0,
    pickerQuery: "",
    quitting: false,
  };
}

/** True once both pipelines have ended (or failed). */
export function bothRunsFinished(state: DemoState): boolean {
  return Object.values(state.panes).every(
    (pane) => pane.summary !== undefined || pane.error !== undefined,
  );
}

function firstStartingWith(names: readonly string[], prefix: string): number {
  return names.findIndex((name) => name.toLowerCase().startsWith(prefix));
}

function clamp(value: number, min: number, max: number): number {
  return Math.min(Math.max(value, min), Math.max(min, max));
}

/** The demo's state machine. Pure: keys and run events come in as actions. */
export function demoReducer(state: DemoState, action: DemoAction): DemoState {
  switch (action.type) {
    case "run-event":
    case "run-fail":
      return {
        ...state,
        panes: {
          ...state.panes,
          [action.side]: runPaneReducer(state.panes[action.side], action),
        },
      };
    case "restart":
      return {
        ...initialDemoState(action.scenario ?? state.scenario, state.baselineMode),
        round: state.round + 1,
        pickerIndex: state.pickerIndex,
      };
    case "focus-set":
      return { ...state, focus: action.focus };
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
    case "picker-open": {
      // The picker starts on the scenario running now.
      const current = action.names.indexOf(state.scenario);
      return {
        ...state,
        view: "scenario-picker",
        pickerIndex: Math.max(current, 0),
        pickerQuery: "",
      };
    }
    case "picker-move":
      return {
        ...state,
        pickerQuery: "",
        pickerIndex:
          action.count > 0 ? (state.pickerIndex + action.delta + action.count) % action.count : 0,
      };
    case "picker-type": {
      // Keys typed in order narrow to the first name starting with all of them; a key that
      // matches nothing with what came before starts a new search.
      const query = `${state.pickerQuery}${action.text}`.toLowerCase();
      const found = firstStartingWith(action.names, query);
      if (found >= 0) return { ...state, pickerQuery: query, pickerIndex: found };
      const fresh = action.text.toLowerCase();
      const again = firstStartingWith(action.names, fresh);
      return again >= 0
        ? { ...state, pickerQuery: fresh, pickerIndex: again }
        : { ...state, pickerQuery: "" };
    }
    case "picker-type-reset":
      return { ...state, pickerQuery: "" };
    case "help-toggle":
      if (state.view === "help") return { ...state, view: state.helpReturn ?? "panes" };
      return { ...state, view: "help", helpReturn: state.view };
    case "quit":
      return state.quitting ? state : { ...state, quitting: action.ending };
    case "comparison-toggle":
      // Only once both runs have ended: before that there is nothing to compare.
      if (state.view === "comparison") return { ...state, view: "panes" };
      return bothRunsFinished(state) ? { ...state, view: "comparison" } : state;
    case "view-close":
      return { ...state, view: "panes" };
    default:
      return checkExhaustive(action);
  }
}
