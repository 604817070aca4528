import { Box, Text } from "ink";
import type { AgentInfo } from "../../scenario/scenario-events.js";
import { useTheme } from "../contexts/theme-context.js";
import type { AgentStatus } from "../state/run-pane-reducer.js";
import { toneColor } from "./tone-color.js";

/** Props of {@link AgentStatusRows}. */
export type AgentStatusRowsProps = {
  /** The run's agents, in the order their rows are drawn (as run-start announced them). */
  readonly agents: readonly AgentInfo[];
  /** What each agent is doing, by agent id; an agent without an entry shows "waiting". */
  readonly statuses: Readonly<Record<string, AgentStatus>>;
  /** The spinner's current frame, shown on busy agents. */
  readonly spinner: string;
};

/** One row per agent: its name in its colour, a spinner while it works, what it is doing. */
export function AgentStatusRows({ agents, statuses, spinner }: AgentStatusRowsProps) {
  const theme = useTheme();
  const nameWidth = Math.max(0, ...agents.map((agent) => agent.name.length));
  return (
    <Box flexDirection="column">
      {agents.map((agent) => {
        const status = statuses[agent.id];
        const busy = status?.busy ?? false;
        const mark = busy ? spinner : status?.activity === "done" ? "✔" : "·";
        return (
          <Box key={agent.id}>
            <Box width={nameWidth + 1} flexShrink={0}>
              <Text bold color={theme.agent(agent.color)}>
                {agent.name}
              </Text>
            </Box>
            <Box width={2} flexShrink={0}>
              <Text color={busy ? theme.status.working : theme.text.muted}>{mark}</Text>
            </Box>
            <Text
              wrap="truncate-end"
              color={status ? toneColor(theme, status.tone) : theme.text.muted}
            >
              {status?.activity ?? "waiting"}
            </Text>
          </Box>
        );
      })}
    </Box>
  );
}
