import { Box, Text } from "ink";
import { useTheme } from "../contexts/theme-context.js";

/** A scenario the picker offers. */
export interface ScenarioChoice {
  readonly name: string;
  readonly title: string;
}

export type ScenarioPickerProps = {
  readonly scenarios: readonly ScenarioChoice[];
  readonly selectedIndex: number;
  readonly current: string;
};

/** The list of shipped scenarios; ↑/↓ move, Enter runs the highlighted one. */
export function ScenarioPicker({ scenarios, selectedIndex, current }: ScenarioPickerProps) {
  const theme = useTheme();
  return (
    <Box flexDirection="column" borderStyle="round" borderColor={theme.border.default} paddingX={1}>
      <Text bold>Pick a scenario</Text>
      {scenarios.map((scenario, index) => {
        const selected = index === selectedIndex;
        return (
          <Text
            key={scenario.name}
            wrap="truncate-end"
            color={selected ? theme.text.accent : undefined}
            bold={selected}
          >
            {selected ? "❯ " : "  "}
            {scenario.name}
            {scenario.name === current ? " (current)" : ""}
            <Text color={theme.text.muted}> — {scenario.title}</Text>
          </Text>
        );
      })}
      {scenarios.length === 0 ? <Text color={theme.text.muted}>(no scenarios found)</Text> : null}
    </Box>
  );
}
