import { useApp, useInput } from "ink";
import { useMemo, useReducer } from "react";
import { DemoScreen } from "./components/demo-screen.js";
import type { ScenarioChoice } from "./components/scenario-picker.js";
import { formatTimelineReport } from "./format/timeline-table.js";
import { useDemoRuns } from "./hooks/use-demo-runs.js";
import { useSpinner } from "./hooks/use-spinner.js";
import { useTerminalSize } from "./hooks/use-terminal-size.js";
import { type LoadTimeline, useTimelineLoader } from "./hooks/use-timeline-loader.js";
import type { StartDemoRuns } from "./run-source.js";
import { bothRunsFinished, demoReducer, initialDemoState } from "./state/demo-reducer.js";

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
};

/**
 * `shared-ctx demo`: the naive and the shared-context pipelines live side by side, their verdicts,
 * the comparison, and the timeline of the shared-context run on `t`. State lives in the pure
 * `demoReducer`; this component wires runs, keys and the terminal size to it.
 */
export function DemoApp({ initialScenario, scenarios, start, loadTimeline, speed }: DemoAppProps) {
  const { exit } = useApp();
  const [state, dispatch] = useReducer(demoReducer, initialScenario, initialDemoState);
  useDemoRuns(start, state.scenario, state.round, dispatch);
  useTimelineLoader(loadTimeline, state.timeline, dispatch);
  const { columns, rows } = useTerminalSize();
  const spinner = useSpinner(!bothRunsFinished(state) && state.view === "panes");
  const statewaveRunId = state.panes.statewave.runId;

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
    if (input === "q" || (key.ctrl && input === "c")) {
      // renderDemo tells Ctrl-C (an interrupt: exit 130) from q (a normal quit).
      exit(key.ctrl ? "interrupt" : undefined);
      return;
    }
    switch (state.view) {
      case "panes":
        if (input === "t" && statewaveRunId) {
          dispatch({ type: "timeline-open", runId: statewaveRunId });
        } else if (input === "r") dispatch({ type: "restart" });
        else if (input === "s") dispatch({ type: "picker-open" });
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
