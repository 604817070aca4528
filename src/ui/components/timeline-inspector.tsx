import { Box, Text } from "ink";
import { useTheme } from "../contexts/theme-context.js";
import type { AgentDirectory } from "../format/agent-directory.js";
import type { InspectorPage } from "../format/inspector-lines.js";
import type { InspectorState } from "../state/inspector-reducer.js";
import { KeyHints } from "./key-hints.js";

/** Props of {@link TimelineInspector}. */
export type TimelineInspectorProps = {
  /** The heading and table lines (`inspectorPage`). */
  readonly page: InspectorPage;
  /** Scroll, search and follow state (`inspectorReducer`). */
  readonly state: InspectorState;
  /** Table lines shown at once. */
  readonly height: number;
  /** The run's agents: their colours, and the one shown alone. */
  readonly agents: AgentDirectory;
  /** The agent shown alone, if any. */
  readonly agentName?: string;
};

const hints = [
  ["↑↓ PgUp PgDn g G", "scroll"],
  ["/", "search"],
  ["a", "agent"],
  ["f", "follow"],
  ["s", "sections"],
  ["q", "quit"],
] as const;

/** `shared-ctx timeline` in a terminal: a scrollable, filterable table in agent colours. */
export function TimelineInspector({
  page,
  state,
  height,
  agents,
  agentName,
}: TimelineInspectorProps) {
  const theme = useTheme();
  // A line's number in the page is its identity while the page is shown.
  const visible = page.lines
    .slice(state.scroll, state.scroll + height)
    .map((line, offset) => ({ line, number: state.scroll + offset }));
  const filters = [
    agentName ? `agent ${agentName}` : "all agents",
    state.search ? `search "${state.search}"` : undefined,
    state.follow ? "following" : undefined,
  ].filter((part) => part !== undefined);
  return (
    <Box flexDirection="column">
      {page.heading.map((line, index) => (
        <Text
          // The heading's lines are fixed for a width: their position is their identity.
          // biome-ignore lint/suspicious/noArrayIndexKey: see above.
          key={index}
          wrap="truncate-end"
          bold={index === 0 || line.startsWith("Time")}
          color={line.startsWith("─") ? theme.text.muted : undefined}
        >
          {line || " "}
        </Text>
      ))}
      <Box flexDirection="column" height={height}>
        {visible.map(({ line, number }) => (
          <Text
            key={number}
            wrap="truncate-end"
            bold={line.sectionTitle === true}
            color={
              line.sectionTitle
                ? theme.text.accent
                : line.agentId
                  ? theme.agent(agents.color(line.agentId))
                  : theme.text.muted
            }
          >
            {line.text || " "}
          </Text>
        ))}
        {page.rowCount === 0 ? <Text color={theme.text.muted}>(no rows match)</Text> : null}
      </Box>
      <Text color={theme.text.muted} wrap="truncate-end">
        {`lines ${Math.min(page.lines.length, state.scroll + 1)}–${Math.min(page.lines.length, state.scroll + height)} of ${page.lines.length} · ${page.rowCount} rows${page.sectionStarts.length > 0 ? ` + ${page.sectionStarts.length} sections` : ""} · ${filters.join(" · ")}`}
      </Text>
      {state.draft !== undefined ? (
        <Text>
          <Text bold color={theme.text.accent}>
            /
          </Text>
          {state.draft}
          <Text color={theme.text.muted}>▏ enter search · esc cancel</Text>
        </Text>
      ) : (
        <KeyHints hints={hints} />
      )}
    </Box>
  );
}
