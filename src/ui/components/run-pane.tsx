import { Box, Text } from "ink";
import { useTheme } from "../contexts/theme-context.js";
import { createAgentDirectory } from "../format/agent-directory.js";
import { paneTitles } from "../format/pane-titles.js";
import { verdictFor } from "../format/verdict.js";
import type { RunPaneState } from "../state/run-pane-reducer.js";
import { AgentStatusRows } from "./agent-status-rows.js";
import { EventLog } from "./event-log.js";
import { VerdictBox } from "./verdict-box.js";

/** Props of {@link RunPane}. */
export type RunPaneProps = {
  /** The pipeline's state (`runPaneReducer`): its lines, statuses and, once ended, its summary. */
  readonly pane: RunPaneState;
  /** Outer width, border included. */
  readonly width: number;
  /** Rows for the event log. */
  readonly logRows: number;
  /** The spinner's current frame, shown on busy agents. */
  readonly spinner: string;
};

/**
 * One pipeline, live: its title and run id, the agent-coloured event log, a status row per agent
 * while it runs, and its verdict once it has ended.
 */
export function RunPane({ pane, width, logRows, spinner }: RunPaneProps) {
  const theme = useTheme();
  const agents = createAgentDirectory(pane.agents);
  const borderColor = pane.mode === "naive" ? theme.border.naive : theme.border.statewave;
  return (
    <Box
      borderStyle="round"
      borderColor={borderColor}
      flexDirection="column"
      paddingX={1}
      width={width}
      flexShrink={0}
    >
      <Box justifyContent="space-between">
        <Text bold wrap="truncate-end">
          {paneTitles[pane.mode]}
        </Text>
        <Text color={theme.text.muted} wrap="truncate-start">
          {pane.runId ?? "starting…"}
        </Text>
      </Box>
      <EventLog lines={pane.lines} agents={agents} width={width - 4} maxRows={logRows} />
      {pane.summary ? (
        <VerdictBox verdict={verdictFor(pane.summary, pane.events)} />
      ) : (
        <AgentStatusRows agents={pane.agents} statuses={pane.statuses} spinner={spinner} />
      )}
      {pane.error ? (
        <Text color={theme.status.error} wrap="wrap">
          Run failed: {pane.error}
        </Text>
      ) : null}
    </Box>
  );
}
