import { Text } from "ink";
import type { RunSummary } from "../../scenario/scenario-events.js";
import { formatComparisonLine } from "../format/comparison-line.js";

/** Props of {@link ComparisonLine}. */
export type ComparisonLineProps = {
  /** The left pane's summary. */
  readonly baseline: RunSummary;
  /** The right pane's summary. */
  readonly shared: RunSummary;
};

/** The comparison in one bold line (small terminals), cut at the terminal's width. */
export function ComparisonLine({ baseline, shared }: ComparisonLineProps) {
  return (
    <Text bold wrap="truncate-end">
      {formatComparisonLine(baseline, shared)}
    </Text>
  );
}
