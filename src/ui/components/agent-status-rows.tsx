import { Box, Text } from "ink";
import type { AgentInfo } from "../../scenario/scenario-events.js";
import { useTheme } from "../contexts/theme-context.js";
import { textWidth } from "../format/text-width.js";
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
  /** All agents on one line (a tiny terminal). @default false */
  readonly folded?: boolean;
};

/** One row per agent: its name in its colour, a spinner while it works, what it is doing. */
export function AgentStatusRows({ agents, statuses, spinner, folded }: AgentStatusRowsProps) {
  const theme = useTheme();
  const markOf = (agentId: string) => {
    const status = statuses[agentId];
    return status?.busy ? spinner : status?.activity === "done" ? "✔" : "·";
  };
  if (folded) {
    return (
      <Text wrap="truncate-end">
        {agents.map((agent, index) => (
          <Text key={agent.id}>
            {index > 0 ? <Text color={theme.text.muted}> · </Text> : null}
            <Text bold color={theme.agent(agent.color)}>
              {agent.name}
            </Text>{" "}
            {markOf(agent.id)}
            {statuses[agent.id]?.busy ? ` ${statuses[agent.id]?.activity ?? ""}` : ""}
          </Text>
        ))}
      </Text>
    );
  }
  const nameWidth = Math.max(0, ...agents.map((agent) => textWidth(agent.name)));
  return (
    <Box flexDirection="column">
      {agents.map((agent) => {
        const status = statuses[agent.id];
        const busy = status?.busy ?? false;
        const mark = markOf(agent.id);
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
