import { Box, Text } from "ink";
import { useTheme } from "../contexts/theme-context.js";
import type { Verdict } from "../format/verdict.js";
import { compactVerdictDetails } from "../layout/demo-layout.js";
import { verdictColor } from "./verdict-box.js";

/** Props of {@link CompactVerdict}. */
export type CompactVerdictProps = {
  /** What the run amounts to (`verdictFor`). */
  readonly verdict: Verdict;
  /** Cut each line to the width (a terminal too small for the wrapped verdict). @default false */
  readonly cut?: boolean;
};

/**
 * The verdict without its box for a small terminal: the headline in the verdict's colour, then
 * its details (and open escalations) in one paragraph, both wrapped, never cut: the "why" is
 * what the demo is for (the layout gives these rows before the logs get any).
 */
export function CompactVerdict({ verdict, cut = false }: CompactVerdictProps) {
  const theme = useTheme();
  const color = verdictColor(theme, verdict.kind);
  const details = compactVerdictDetails(verdict);
  return (
    <Box flexDirection="column">
      <Text bold color={color} wrap={cut ? "truncate-end" : "wrap"}>
        {verdict.title}
      </Text>
      <Text wrap={cut ? "truncate-end" : "wrap"}>{details}</Text>
    </Box>
  );
}
