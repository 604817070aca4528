import { Box, Text } from "ink";
import { checkExhaustive } from "../../errors.js";
import type { RunMode } from "../../scenario/scenario-events.js";
import { useTheme } from "../contexts/theme-context.js";
import { createAgentDirectory } from "../format/agent-directory.js";
import { paneTitles } from "../format/pane-titles.js";
import { verdictFor } from "../format/verdict.js";
import type { RunPaneState } from "../state/run-pane-reducer.js";
import type { Theme } from "../theme/tokens.js";
import { AgentStatusRows } from "./agent-status-rows.js";
import { CompactVerdict } from "./compact-verdict.js";
import { EventLog } from "./event-log.js";
import { MomentLine } from "./moment-line.js";
import { VerdictBox } from "./verdict-box.js";

/** Props of {@link RunPane}. */
export type RunPaneProps = {
  /** The pipeline's state (`runPaneReducer`): its lines, statuses and, once ended, its summary. */
  readonly pane: RunPaneState;
  /** Outer width, border included. */
  readonly width: number;
  /** Rows for the event log (0 hides it). */
  readonly logRows: number;
  /** The spinner's current frame, shown on busy agents. */
  readonly spinner: string;
  /** Small terminal: the verdict in two lines without its box, the failure in one. @default false */
  readonly compact?: boolean;
  /** Tiny terminal: the agents' status rows folded into one line. @default false */
  readonly foldStatus?: boolean;
  /** Tinier still: the compact verdict's two lines cut to the width. @default false */
  readonly cutVerdict?: boolean;
};

/** The border colour of a pipeline: message passing on one side, shared context on the other. */
export function modeColor(theme: Theme, mode: RunMode): string | undefined {
  switch (mode) {
    case "naive":
    case "broadcast":
    case "group-chat":
      return theme.border.naive;
    case "statewave":
      return theme.border.statewave;
    default:
      return checkExhaustive(mode);
  }
}

/**
 * One pipeline, live: its title and run id, the agent-coloured event log, the moment it holds
 * (a doomed build in red, a skip or cancel highlighted) and a status row per agent while it runs,
 * and its verdict once it has ended.
 */
export function RunPane(props: RunPaneProps) {
  const { pane, width, logRows, spinner, compact, foldStatus, cutVerdict } = props;
  const theme = useTheme();
  const agents = createAgentDirectory(pane.agents);
  const verdict = pane.summary ? verdictFor(pane.summary, pane.events) : undefined;
  return (
    <Box
      borderStyle="round"
      borderColor={modeColor(theme, pane.mode)}
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
      {logRows > 0 ? (
        <EventLog lines={pane.lines} agents={agents} width={width - 4} maxRows={logRows} />
      ) : null}
      {verdict ? (
        compact ? (
          <CompactVerdict verdict={verdict} cut={cutVerdict === true} />
        ) : (
          <VerdictBox verdict={verdict} />
        )
      ) : (
        <>
          {pane.moment ? <MomentLine moment={pane.moment} /> : null}
          <AgentStatusRows
            agents={pane.agents}
            statuses={pane.statuses}
            spinner={spinner}
            folded={foldStatus}
          />
        </>
      )}
      {pane.error ? (
        <Text color={theme.status.error} wrap={compact ? "truncate-end" : "wrap"}>
          Run failed: {pane.error}
        </Text>
      ) : null}
    </Box>
  );
}
