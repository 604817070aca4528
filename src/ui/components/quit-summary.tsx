import { Box, Text } from "ink";
import { useTheme } from "../contexts/theme-context.js";
import { formatComparisonLine } from "../format/comparison-line.js";
import { paneTitles } from "../format/pane-titles.js";
import { textWidth } from "../format/text-width.js";
import { verdictFor } from "../format/verdict.js";
import type { RunPaneState } from "../state/run-pane-reducer.js";
import { verdictColor } from "./verdict-box.js";

/** Props of {@link QuitSummary}. */
export type QuitSummaryProps = {
  /** Left and right pane, in the order drawn. */
  readonly panes: readonly [RunPaneState, RunPaneState];
  /** The command that shows a run's timeline, with the store flags the demo ran with. */
  readonly timelineCommand: (runId: string) => string;
};

/**
 * What stays on screen after the demo quits: a few lines, so the user's scrollback above keeps
 * its history: each side's verdict in one line, the comparison, and where to look next.
 */
export function QuitSummary({ panes, timelineCommand }: QuitSummaryProps) {
  const theme = useTheme();
  const [baseline, shared] = panes;
  const titleWidth = Math.max(...panes.map((pane) => textWidth(paneTitles[pane.mode]))) + 2;
  return (
    <Box flexDirection="column">
      {panes.map((pane) => {
        const verdict = pane.summary ? verdictFor(pane.summary, pane.events) : undefined;
        return (
          <Box key={pane.mode}>
            <Box width={titleWidth} flexShrink={0}>
              <Text bold>{paneTitles[pane.mode]}</Text>
            </Box>
            <Text wrap="truncate-end">
              <Text color={theme.text.muted}>{pane.runId ?? "(not started)"} </Text>
              {verdict ? (
                <Text color={verdictColor(theme, verdict.kind)}>{verdict.title}</Text>
              ) : pane.error ? (
                <Text color={theme.status.error}>failed: {pane.error}</Text>
              ) : (
                <Text color={theme.text.muted}>stopped before its end</Text>
              )}
            </Text>
          </Box>
        );
      })}
      {baseline.summary && shared.summary ? (
        <Text bold wrap="truncate-end">
          {formatComparisonLine(baseline.summary, shared.summary)}
        </Text>
      ) : null}
      {shared.runId ? (
        <Text wrap="truncate-end">
          <Text color={theme.text.muted}>Timeline: </Text>
          {timelineCommand(shared.runId)}
        </Text>
      ) : null}
    </Box>
  );
}
