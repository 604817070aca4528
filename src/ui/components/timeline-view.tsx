import { Box, Text } from "ink";
import { useTheme } from "../contexts/theme-context.js";
import { timelineHeaders, timelineLegendStart } from "../format/timeline-table.js";

/** Props of {@link TimelineView}. */
export type TimelineViewProps = {
  /** The report lines (`formatTimelineReport`), the same the plain `timeline` command prints. */
  readonly lines: readonly string[];
  /** First line shown. */
  readonly scroll: number;
  /** Lines shown at once. */
  readonly height: number;
};

const sectionTitles = /^(Final memory state|Escalations|Who read what)/;

/** A scrollable window onto the timeline report; headings bold, the table header underlined. */
export function TimelineView({ lines, scroll, height }: TimelineViewProps) {
  const theme = useTheme();
  // Report lines are fixed for a loaded timeline: a line's number is its identity.
  const visible = lines
    .slice(scroll, scroll + height)
    .map((line, offset) => ({ line, number: scroll + offset }));
  return (
    <Box flexDirection="column">
      {visible.map(({ line, number }) => {
        const isHeader =
          line.startsWith(timelineHeaders.time) && !line.startsWith(timelineLegendStart);
        const isHeading = number === 0 || sectionTitles.test(line);
        const isMuted = line.startsWith("─") || line.startsWith(timelineLegendStart);
        return (
          <Text
            key={number}
            wrap="truncate-end"
            bold={isHeader || isHeading}
            underline={isHeader}
            color={isMuted ? theme.text.muted : undefined}
          >
            {line || " "}
          </Text>
        );
      })}
      <Text color={theme.text.muted}>
        {`lines ${Math.min(lines.length, scroll + 1)}–${Math.min(lines.length, scroll + height)} of ${lines.length}`}
      </Text>
    </Box>
  );
}
