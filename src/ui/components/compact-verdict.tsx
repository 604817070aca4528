import { Box, Text } from "ink";
import { useTheme } from "../contexts/theme-context.js";
import type { Verdict } from "../format/verdict.js";
import { verdictColor } from "./verdict-box.js";

/** Props of {@link CompactVerdict}. */
export type CompactVerdictProps = {
  /** What the run amounts to (`verdictFor`). */
  readonly verdict: Verdict;
};

/**
 * The verdict in two lines for a small terminal: the headline in the verdict's colour, then its
 * details (and open escalations) on one line, each cut to the pane's width.
 */
export function CompactVerdict({ verdict }: CompactVerdictProps) {
  const theme = useTheme();
  const color = verdictColor(theme, verdict.kind);
  const details = [
    ...verdict.details,
    ...(verdict.escalations.length > 0 ? [`${verdict.escalations.length} escalated`] : []),
  ].join(" · ");
  return (
    <Box flexDirection="column">
      <Text bold color={color} wrap="truncate-end">
        {verdict.title}
      </Text>
      <Text wrap="truncate-end">{details}</Text>
    </Box>
  );
}
