import { Box, Text } from "ink";
import type { RunSummary } from "../../scenario/scenario-events.js";
import { useTheme } from "../contexts/theme-context.js";
import { compareRuns, comparisonCostLine, comparisonHeadline } from "../format/comparison.js";
import { paneTitles } from "../format/pane-titles.js";
import { textWidth } from "../format/text-width.js";

/** Props of {@link ComparisonView}. */
export type ComparisonViewProps = {
  /** The naive run's summary (left column). */
  readonly naive: RunSummary;
  /** The shared-context run's summary (right column). */
  readonly statewave: RunSummary;
  /** Columns available; the table's value columns share what the label column leaves. */
  readonly width: number;
  /**
   * Wrap long values instead of cutting them (the full-screen view on `c`, where nothing else
   * needs the rows). @default false: one row per line, as the layout counts them
   */
  readonly wrap?: boolean;
};

/** What each side wasted, line by line; the better value of each line in the success colour. */
export function ComparisonView({ naive, statewave, width, wrap = false }: ComparisonViewProps) {
  const theme = useTheme();
  const rows = compareRuns(naive, statewave);
  const labelWidth = Math.max(...rows.map((row) => textWidth(row.label))) + 2;
  const valueWidth = Math.max(8, Math.floor((width - labelWidth) / 2));
  const colorOf = (better: string, side: string) =>
    better === "same" ? undefined : better === side ? theme.status.success : theme.status.error;
  return (
    <Box flexDirection="column" width={width}>
      <Text bold>Comparison</Text>
      <Box>
        <Box width={labelWidth} flexShrink={0} />
        <Box width={valueWidth} flexShrink={0}>
          <Text bold color={theme.border.naive}>
            {paneTitles[naive.mode]}
          </Text>
        </Box>
        <Box width={valueWidth} flexShrink={0}>
          <Text bold color={theme.border.statewave}>
            {paneTitles[statewave.mode]}
          </Text>
        </Box>
      </Box>
      {rows.map((row) => (
        <Box key={row.label}>
          <Box width={labelWidth} flexShrink={0}>
            <Text color={theme.text.muted}>{row.label}</Text>
          </Box>
          <Box width={valueWidth} flexShrink={0}>
            <Text wrap={wrap ? "wrap" : "truncate-end"} color={colorOf(row.better, "naive")}>
              {row.naive}
            </Text>
          </Box>
          <Box width={valueWidth} flexShrink={0}>
            <Text wrap={wrap ? "wrap" : "truncate-end"} color={colorOf(row.better, "statewave")}>
              {row.statewave}
            </Text>
          </Box>
        </Box>
      ))}
      <Text bold wrap={wrap ? "wrap" : "truncate-end"}>
        {comparisonHeadline(naive, statewave, { cost: "none" })}
      </Text>
      <Text wrap={wrap ? "wrap" : "truncate-end"}>{comparisonCostLine(naive, statewave)}</Text>
    </Box>
  );
}
