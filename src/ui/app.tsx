import { useApp, useInput } from "ink";
import { useEffect, useMemo, useReducer } from "react";
import type { RunMode } from "../scenario/scenario-events.js";
import { DemoScreen } from "./components/demo-screen.js";
import type { ScenarioChoice } from "./components/scenario-picker.js";
import { formatTimelineReport } from "./format/timeline-table.js";
import { useDemoRuns } from "./hooks/use-demo-runs.js";
import { useSpinner } from "./hooks/use-spinner.js";
import { useTerminalSize } from "./hooks/use-terminal-size.js";
import { type LoadTimeline, useTimelineLoader } from "./hooks/use-timeline-loader.js";
import type { StartDemoRuns } from "./run-source.js";
import { bothRunsFinished, demoReducer, initialDemoState } from "./state/demo-reducer.js";
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

  // Quitting clears the live frame first; the exit follows once that frame is committed and hands
  // the panes over, so renderDemo can print the ending as ordinary output (it stays in scrollback).
  useEffect(() => {
    if (!state.quitting) return;
    const ending: DemoExit = {
      ending: state.quitting === "interrupt" ? "interrupt" : "quit",
      scenario: state.scenario,
      panes: [state.panes.baseline, state.panes.shared],
    };
    exit(ending);
  }, [state.quitting, state.scenario, state.panes, exit]);
  useEffect(() => {
    if (!quitSignal) return;
    const onAbort = () => dispatch({ type: "quit", ending: "quit" });
    if (quitSignal.aborted) onAbort();
    quitSignal.addEventListener("abort", onAbort, { once: true });
    return () => quitSignal.removeEventListener("abort", onAbort);
  }, [quitSignal]);
  useEffect(() => {
    if (!state.pickerQuery) return;
    const timer = setTimeout(() => dispatch({ type: "picker-type-reset" }), typeAheadResetMs);
    return () => clearTimeout(timer);
  }, [state.pickerQuery]);

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
    if (key.ctrl && input === "c") {
      // renderDemo tells Ctrl-C (an interrupt: exit 130) from q (a normal quit).
      dispatch({ type: "quit", ending: "interrupt" });
      return;
    }
    // In the picker, letters are type-ahead; q still quits when nothing is being typed.
    if (input === "q" && !(state.view === "scenario-picker" && state.pickerQuery)) {
      dispatch({ type: "quit", ending: "quit" });
      return;
    }
    if (input === "?" || (state.view === "help" && key.escape)) {
      dispatch({ type: "help-toggle" });
      return;
    }
    switch (state.view) {
      case "help":
        return;
      case "comparison":
        if (key.escape || input === "c" || input === "b") dispatch({ type: "comparison-toggle" });
        return;
      case "panes":
        if (input === "t" && sharedRunId) {
          dispatch({ type: "timeline-open", runId: sharedRunId });
        } else if (input === "c") dispatch({ type: "comparison-toggle" });
        else if (input === "r") dispatch({ type: "restart" });
        else if (input === "s") dispatch({ type: "picker-open", names: scenarioNames });
        return;
      case "timeline":
        if (key.escape || input === "t" || input === "b") dispatch({ type: "view-close" });
        else if (key.upArrow || input === "k") {
          dispatch({ type: "timeline-scroll", delta: -1, maxScroll });
        } else if (key.downArrow || input === "j") {
          dispatch({ type: "timeline-scroll", delta: 1, maxScroll });
        } else if (key.pageUp) {
          dispatch({ type: "timeline-scroll", delta: -timelineHeight, maxScroll });
        } else if (key.pageDown || input === " ") {
          dispatch({ type: "timeline-scroll", delta: timelineHeight, maxScroll });
        }
        return;
      case "scenario-picker": {
        if (key.escape) dispatch({ type: "view-close" });
        else if (key.upArrow) dispatch({ type: "picker-move", delta: -1, count: scenarios.length });
        else if (key.downArrow)
          dispatch({ type: "picker-move", delta: 1, count: scenarios.length });
        else if (key.return) {
          const chosen = scenarios[state.pickerIndex];
          if (chosen) dispatch({ type: "restart", scenario: chosen.name });
        } else if (input && !key.ctrl && !key.meta && /^[\w.-]+$/.test(input)) {
          dispatch({ type: "picker-type", text: input, names: scenarioNames });
        }
        return;
      }
    }
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
