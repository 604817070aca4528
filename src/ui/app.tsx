import { type Key, useApp, useInput } from "ink";
import { type Dispatch, useEffect, useMemo, useReducer } from "react";
import type { RunMode } from "../scenario/scenario-events.js";
import { DemoScreen } from "./components/demo-screen.js";
import type { ScenarioChoice } from "./components/scenario-picker.js";
import { formatTimelineReport } from "./format/timeline-table.js";
import { useDemoRuns } from "./hooks/use-demo-runs.js";
import { useSpinner } from "./hooks/use-spinner.js";
import { useTerminalSize } from "./hooks/use-terminal-size.js";
import { type LoadTimeline, useTimelineLoader } from "./hooks/use-timeline-loader.js";
import type { StartDemoRuns } from "./run-source.js";
import {
  bothRunsFinished,
  type DemoAction,
  type DemoState,
  demoReducer,
  initialDemoState,
} from "./state/demo-reducer.js";
import type { RunPaneState } from "./state/run-pane-reducer.js";

/** What the demo hands back when it exits (Ink's `waitUntilExit()` resolves with it). */
export interface DemoExit {
  /** `interrupt` for Ctrl-C (the CLI exits 130), `quit` for `q` or an abort. */
  readonly ending: "quit" | "interrupt";
  /** The scenario the last round played. */
  readonly scenario: string;
  /** Both panes as they stood, for the ending printed after the UI is gone. */
  readonly panes: readonly [RunPaneState, RunPaneState];
}

export type DemoAppProps = {
  readonly initialScenario: string;
  /** What `s` offers. */
  readonly scenarios: readonly ScenarioChoice[];
  /** Starts both pipelines of a round. */
  readonly start: StartDemoRuns;
  /** Reads a run's timeline back from the store (the `t` key). */
  readonly loadTimeline: LoadTimeline;
  /** Shown in the header. */
  readonly speed?: number;
  /** The left pane's mode (`--baseline`): its title is right from the first frame. @default "naive" */
  readonly baselineMode?: RunMode;
  /** Aborted (SIGINT, SIGTERM): the demo quits as `q` does, leaving its summary on screen. */
  readonly quitSignal?: AbortSignal;
};

/** Type-ahead in the scenario picker forgets what was typed after this pause. */
const typeAheadResetMs = 1000;

/**
 * `shared-ctx demo`: the naive and the shared-context pipelines live side by side, their verdicts,
 * the comparison, and the timeline of the shared-context run on `t`. State lives in the pure
 * `demoReducer`; this component wires runs, keys and the terminal size to it.
 */
export function DemoApp(props: DemoAppProps) {
  const { initialScenario, scenarios, start, loadTimeline, speed, quitSignal } = props;
  const { exit } = useApp();
  const [state, dispatch] = useReducer(demoReducer, initialScenario, (scenario) =>
    initialDemoState(scenario, props.baselineMode),
  );
  const scenarioNames = useMemo(() => scenarios.map((scenario) => scenario.name), [scenarios]);
  useDemoRuns(start, state.scenario, state.round, dispatch);
  useTimelineLoader(loadTimeline, state.timeline, dispatch);
  const { columns, rows } = useTerminalSize();
  const spinner = useSpinner(!bothRunsFinished(state) && state.view === "panes");
  const sharedRunId = state.panes.shared.runId;

  useExitOnQuit(state, exit);
  useQuitOnAbort(quitSignal, dispatch);
  useTypeAheadReset(state.pickerQuery, dispatch);

  const timelineLines = useMemo(
    () =>
      state.timeline?.status === "ready"
        ? formatTimelineReport(state.timeline.timeline, columns)
        : [],
    [state.timeline, columns],
  );
  // The title, the key hints and the "lines x–y of n" footer take three rows.
  const timelineHeight = Math.max(5, rows - 4);
  const maxScroll = Math.max(0, timelineLines.length - timelineHeight);

  useInput((input, key) => {
    const keys = { sharedRunId, scenarios, scenarioNames, timelineHeight, maxScroll };
    const action = actionForKey(input, key, state, keys);
    if (action) dispatch(action);
  });

  return (
    <DemoScreen
      state={state}
      columns={columns}
      rows={rows}
      spinner={spinner}
      scenarios={scenarios}
      timelineLines={timelineLines}
      timelineHeight={timelineHeight}
      speed={speed}
    />
  );
}

/**
 * Quitting clears the live frame first; the exit follows once that frame is committed and hands
 * the panes over, so renderDemo can print the ending as ordinary output (it stays in scrollback).
 */
function useExitOnQuit(state: DemoState, exit: (result: DemoExit) => void) {
  useEffect(() => {
    if (!state.quitting) return;
    const ending: DemoExit = {
      ending: state.quitting === "interrupt" ? "interrupt" : "quit",
      scenario: state.scenario,
      panes: [state.panes.baseline, state.panes.shared],
    };
    exit(ending);
  }, [state.quitting, state.scenario, state.panes, exit]);
}

/** An aborted signal (SIGINT, SIGTERM) quits as `q` does. */
function useQuitOnAbort(quitSignal: AbortSignal | undefined, dispatch: Dispatch<DemoAction>) {
  useEffect(() => {
    if (!quitSignal) return;
    const onAbort = () => dispatch({ type: "quit", ending: "quit" });
    if (quitSignal.aborted) onAbort();
    quitSignal.addEventListener("abort", onAbort, { once: true });
    return () => quitSignal.removeEventListener("abort", onAbort);
  }, [quitSignal, dispatch]);
}

/** The picker forgets what was typed after a pause. */
function useTypeAheadReset(pickerQuery: string | undefined, dispatch: Dispatch<DemoAction>) {
  useEffect(() => {
    if (!pickerQuery) return;
    const timer = setTimeout(() => dispatch({ type: "picker-type-reset" }), typeAheadResetMs);
    return () => clearTimeout(timer);
  }, [pickerQuery, dispatch]);
}

/** What a key means besides the demo's state: the run `t` opens, the picker's names, the page. */
interface KeyContext {
  readonly sharedRunId: string | undefined;
  readonly scenarios: readonly ScenarioChoice[];
  readonly scenarioNames: readonly string[];
  readonly timelineHeight: number;
  readonly maxScroll: number;
}

/** The reducer action a key press asks for in the current view, or none. */
function actionForKey(
  input: string,
  key: Key,
  state: DemoState,
  context: KeyContext,
): DemoAction | undefined {
  if (key.ctrl && input === "c") {
    // renderDemo tells Ctrl-C (an interrupt: exit 130) from q (a normal quit).
    return { type: "quit", ending: "interrupt" };
  }
  // In the picker, letters are type-ahead; q still quits when nothing is being typed.
  if (input === "q" && !(state.view === "scenario-picker" && state.pickerQuery)) {
    return { type: "quit", ending: "quit" };
  }
  if (input === "?" || (state.view === "help" && key.escape)) return { type: "help-toggle" };
  switch (state.view) {
    case "help":
      return undefined;
    case "comparison":
      return key.escape || input === "c" || input === "b"
        ? { type: "comparison-toggle" }
        : undefined;
    case "panes":
      if (input === "t" && context.sharedRunId) {
        return { type: "timeline-open", runId: context.sharedRunId };
      }
      if (input === "c") return { type: "comparison-toggle" };
      if (input === "r") return { type: "restart" };
      if (input === "s") return { type: "picker-open", names: context.scenarioNames };
      return undefined;
    case "timeline":
      return timelineKeyAction(input, key, context);
    case "scenario-picker":
      return pickerKeyAction(input, key, state, context);
  }
}

/** Keys of the timeline view: back, and scrolling by a line or a page. */
function timelineKeyAction(input: string, key: Key, context: KeyContext): DemoAction | undefined {
  const { maxScroll, timelineHeight } = context;
  if (key.escape || input === "t" || input === "b") return { type: "view-close" };
  if (key.upArrow || input === "k") return { type: "timeline-scroll", delta: -1, maxScroll };
  if (key.downArrow || input === "j") return { type: "timeline-scroll", delta: 1, maxScroll };
  if (key.pageUp) return { type: "timeline-scroll", delta: -timelineHeight, maxScroll };
  if (key.pageDown || input === " ") {
    return { type: "timeline-scroll", delta: timelineHeight, maxScroll };
  }
  return undefined;
}

/** Keys of the scenario picker: back, move, run the chosen one, or type ahead. */
function pickerKeyAction(
  input: string,
  key: Key,
  state: DemoState,
  context: KeyContext,
): DemoAction | undefined {
  const count = context.scenarios.length;
  if (key.escape) return { type: "view-close" };
  if (key.upArrow) return { type: "picker-move", delta: -1, count };
  if (key.downArrow) return { type: "picker-move", delta: 1, count };
  if (key.return) {
    const chosen = context.scenarios[state.pickerIndex];
    return chosen ? { type: "restart", scenario: chosen.name } : undefined;
  }
  if (input && !key.ctrl && !key.meta && /^[\w.-]+$/.test(input)) {
    return { type: "picker-type", text: input, names: context.scenarioNames };
  }
  return undefined;
}
