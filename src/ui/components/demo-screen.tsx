import { Box, Text } from "ink";
import { useTheme } from "../contexts/theme-context.js";
import { demoLayout } from "../layout/demo-layout.js";
import type { DemoState } from "../state/demo-reducer.js";
import { ComparisonView, comparisonViewRows } from "./comparison-view.js";
import { KeyHints } from "./key-hints.js";
import { RunPane } from "./run-pane.js";
import { type ScenarioChoice, ScenarioPicker } from "./scenario-picker.js";
import { TimelineView } from "./timeline-view.js";

/** Props of {@link DemoScreen}. */
export type DemoScreenProps = {
  /** The demo's state (`demoReducer`): which view, both panes, the timeline, the picker. */
  readonly state: DemoState;
  /** Terminal width: side by side from 100 columns, stacked below. */
  readonly columns: number;
  /** Terminal height: the logs shrink so the frame never grows taller. */
  readonly rows: number;
  /** The spinner's current frame, shown on busy agents. */
  readonly spinner: string;
  /** What the scenario picker (`s`) offers. */
  readonly scenarios: readonly ScenarioChoice[];
  /** The timeline report lines when the timeline view is loaded. */
  readonly timelineLines: readonly string[];
  /** Report lines the timeline view shows at once. */
  readonly timelineHeight: number;
  /** The `--speed` shown in the title line. */
  readonly speed?: number;
};

export const paneHints = [
  ["t", "timeline"],
  ["r", "run again"],
  ["s", "scenario"],
  ["q", "quit"],
] as const;
const timelineHints = [
  ["↑↓ PgUp PgDn", "scroll"],
  ["esc", "back"],
  ["q", "quit"],
] as const;
const pickerHints = [
  ["↑↓", "choose"],
  ["enter", "run"],
  ["esc", "back"],
  ["q", "quit"],
] as const;

/** Everything the demo draws for one state and one terminal size. Props in, frame out. */
export function DemoScreen(props: DemoScreenProps) {
  const { state, columns, rows, spinner, speed } = props;
  const theme = useTheme();
  const { naive, statewave } = state.panes;
  const brain = naive.brain ?? statewave.brain;
  const header = (
    <Text wrap="truncate-end">
      <Text bold color={theme.text.accent}>
        shared-ctx demo
      </Text>
      <Text color={theme.text.muted}>
        {` · scenario ${state.scenario}${speed !== undefined ? ` · speed ${speed}×` : ""}${brain ? ` · ${brain}` : ""}`}
      </Text>
    </Text>
  );

  if (state.view === "timeline") {
    const load = state.timeline;
    return (
      <Box flexDirection="column" width={columns}>
        <Text bold wrap="truncate-end">
          Timeline of the shared-context run {statewave.runId ?? ""}
        </Text>
        {load?.status === "ready" ? (
          <TimelineView
            lines={props.timelineLines}
            scroll={load.scroll}
            height={props.timelineHeight}
          />
        ) : load?.status === "failed" ? (
          <Text color={theme.status.error}>Could not read the timeline: {load.message}</Text>
        ) : (
          <Text color={theme.text.muted}>Reading the timeline from the store…</Text>
        )}
        <KeyHints hints={timelineHints} />
      </Box>
    );
  }

  if (state.view === "scenario-picker") {
    return (
      <Box flexDirection="column" width={columns}>
        {header}
        <ScenarioPicker
          scenarios={props.scenarios}
          selectedIndex={state.pickerIndex}
          current={state.scenario}
        />
        <KeyHints hints={pickerHints} />
      </Box>
    );
  }

  const comparison =
    naive.summary && statewave.summary
      ? { naive: naive.summary, statewave: statewave.summary }
      : undefined;
  const layout = demoLayout({
    columns,
    rows,
    fixedRows: 2 + (comparison ? comparisonViewRows() : 0),
    panes: [naive, statewave],
  });
  return (
    <Box flexDirection="column" width={columns}>
      {header}
      <Box flexDirection={layout.sideBySide ? "row" : "column"}>
        <RunPane pane={naive} width={layout.paneWidth} logRows={layout.logRows} spinner={spinner} />
        <RunPane
          pane={statewave}
          width={layout.paneWidth}
          logRows={layout.logRows}
          spinner={spinner}
        />
      </Box>
      {comparison ? <ComparisonView {...comparison} width={columns} /> : null}
      <KeyHints hints={paneHints} />
    </Box>
  );
}
