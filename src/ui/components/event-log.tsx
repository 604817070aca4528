import { Box, Text } from "ink";
import { useTheme } from "../contexts/theme-context.js";
import type { AgentDirectory } from "../format/agent-directory.js";
import { type EventLine, plainEventLine } from "../format/event-line.js";
import { fitTail } from "../format/text-width.js";
import { toneColor } from "./tone-color.js";

/** Props of {@link EventLog}. */
export type EventLogProps = {
  /** The run's lines so far, oldest first. */
  readonly lines: readonly EventLine[];
  /** Names and colours of the run's agents. */
  readonly agents: AgentDirectory;
  /** Text width, to count how many rows wrapped lines take. */
  readonly width: number;
  /** At most this many rows: the newest lines that fit are shown. */
  readonly maxRows: number;
};

/** An agent-coloured log of a run's lines, newest at the bottom, never taller than `maxRows`. */
export function EventLog({ lines, agents, width, maxRows }: EventLogProps) {
  const theme = useTheme();
  const visible = fitTail(lines, plainEventLine, width, maxRows);
  return (
    <Box flexDirection="column" height={maxRows}>
      {visible.map((line, index) => (
        // Lines never change once written, so their position in the log is a stable key.
        // biome-ignore lint/suspicious/noArrayIndexKey: see above.
        <Text key={`${lines.length - visible.length + index}`} wrap="wrap">
          <Text
            bold
            color={line.agentId ? theme.agent(agents.color(line.agentId)) : theme.text.muted}
          >
            [{line.label}]
          </Text>{" "}
          <Text
            color={toneColor(theme, line.tone)}
            bold={line.tone === "decision" || line.tone === "error"}
          >
            {line.text}
          </Text>
        </Text>
      ))}
    </Box>
  );
}
