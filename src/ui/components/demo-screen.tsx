import { Box, Text } from "ink";
import type { ReactNode } from "react";
import { useTheme } from "../contexts/theme-context.js";
import { formatCaption } from "../format/caption.js";
import { helpKeys, paneHints } from "../format/demo-keys.js";
import { demoLayout } from "../layout/demo-layout.js";
import type { DemoState } from "../state/demo-reducer.js";
import type { RunPaneState } from "../state/run-pane-reducer.js";
import { ComparisonLine } from "./comparison-line.js";
import { ComparisonView } from "./comparison-view.js";
import { HelpOverlay } from "./help-overlay.js";
import { KeyHints, type KeyHintsProps } from "./key-hints.js";
import { RunPane } from "./run-pane.js";
import { type ScenarioChoice, ScenarioPicker } from "./scenario-picker.js";
import { TimelineView } from "./timeline-view.js";

export { helpKeys, paneHints };

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

const timelineHints = [
  ["↑↓ PgUp PgDn", "scroll"],
  ["esc", "back"],
  ["q", "quit"],
] as const;
const comparisonHints = [
  ["esc c", "back"],
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
  const { state, columns } = props;
  const { baseline, shared } = state.panes;
  const header = <DemoHeader state={state} speed={props.speed} />;

  // The live frame goes: the ending is printed after it as plain output (renderDemo), so all of
  // it stays in the scrollback however tall it is.
  if (state.quitting) return null;

  if (state.view === "help") {
    return (
      <DemoPage columns={columns} title={header}>
        <HelpOverlay keys={helpKeys} width={Math.min(columns, 80)} />
      </DemoPage>
    );
  }

  const comparison =
    baseline.summary && shared.summary
      ? { baseline: baseline.summary, shared: shared.summary }
      : undefined;

  if (state.view === "comparison" && comparison) {
    return (
      <DemoPage columns={columns} title={header} hints={comparisonHints}>
        <ComparisonView
          naive={comparison.baseline}
          statewave={comparison.shared}
          width={columns}
          wrap
        />
      </DemoPage>
    );
  }

  if (state.view === "timeline") return <TimelineScreen {...props} />;

  if (state.view === "scenario-picker") {
    return (
      <DemoPage columns={columns} title={header} hints={pickerHints}>
        <ScenarioPicker
          scenarios={props.scenarios}
          selectedIndex={state.pickerIndex}
          current={state.scenario}
        />
      </DemoPage>
    );
  }

  return <PanesScreen {...props} header={header} comparison={comparison} />;
}

/** A demo view, framed alike: its title line above, its key hints below (the help lists its own). */
function DemoPage(props: {
  readonly columns: number;
  readonly title: ReactNode;
  readonly hints?: KeyHintsProps["hints"];
  readonly children: ReactNode;
}) {
  return (
    <Box flexDirection="column" width={props.columns}>
      {props.title}
      {props.children}
      {props.hints ? <KeyHints hints={props.hints} /> : null}
    </Box>
  );
}

/** The title line: the scenario, the speed and the brain of the runs. */
function DemoHeader({ state, speed }: { readonly state: DemoState; readonly speed?: number }) {
  const theme = useTheme();
  const { baseline, shared } = state.panes;
  const brain = baseline.brain ?? shared.brain;
  return (
    <Text wrap="truncate-end">
      <Text bold color={theme.text.accent}>
        shared-ctx demo
      </Text>
      <Text color={theme.text.muted}>
        {` · scenario ${state.scenario}${speed !== undefined ? ` · speed ${speed}×` : ""}${brain ? ` · ${brain}` : ""}`}
      </Text>
    </Text>
  );
}

/** The `t` view: the shared-context run's timeline report, once the store has answered. */
function TimelineScreen(props: DemoScreenProps) {
  const { state, columns } = props;
  const theme = useTheme();
  const load = state.timeline;
  const title = (
    <Text bold wrap="truncate-end">
      Timeline of the shared-context run {state.panes.shared.runId ?? ""}
    </Text>
  );
  return (
    <DemoPage columns={columns} title={title} hints={timelineHints}>
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
    </DemoPage>
  );
}

/** Both summaries, once both runs have ended. */
type Comparison = {
  readonly baseline: NonNullable<RunPaneState["summary"]>;
  readonly shared: NonNullable<RunPaneState["summary"]>;
};

/** The main view: the caption, both panes laid out for the terminal, then the comparison. */
function PanesScreen(
  props: DemoScreenProps & { readonly header: ReactNode; readonly comparison?: Comparison },
) {
  const { state, columns, rows, spinner, comparison } = props;
  const theme = useTheme();
  const { baseline, shared } = state.panes;
  const caption = state.focus
    ? formatCaption(state.focus, baseline.events, shared.events)
    : undefined;
  const layout = demoLayout({
    columns,
    rows,
    fixedRows: 2 + (caption ? 1 : 0),
    comparison: comparison !== undefined,
    panes: [baseline, shared],
  });
  const paneProps = {
    width: layout.paneWidth,
    logRows: layout.logRows,
    spinner,
    compact: layout.compact,
    foldStatus: layout.foldStatus,
    cutVerdict: layout.cutVerdict,
  };
  const hints = comparison && layout.compact ? paneHints : paneHints.filter(([key]) => key !== "c");
  return (
    <DemoPage columns={columns} title={props.header} hints={hints}>
      {caption ? (
        <Text bold color={theme.text.accent} wrap="truncate-end">
          {caption}
        </Text>
      ) : null}
      <Box flexDirection={layout.sideBySide ? "row" : "column"}>
        <RunPane pane={baseline} {...paneProps} />
        <RunPane pane={shared} {...paneProps} />
      </Box>
      {comparison ? (
        layout.compact ? (
          <ComparisonLine {...comparison} />
        ) : (
          <ComparisonView
            naive={comparison.baseline}
            statewave={comparison.shared}
            width={columns}
          />
        )
      ) : null}
    </DemoPage>
  );
}
