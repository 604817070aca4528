import { Box, Text } from "ink";
import { useTheme } from "../contexts/theme-context.js";

/** A scenario the picker offers. */
export interface ScenarioChoice {
  /** What `--scenario` takes: "two-coders". */
  readonly name: string;
  /** One line about it: "Two coders, one module". */
  readonly title: string;
}

/** Props of {@link ScenarioPicker}. */
export type ScenarioPickerProps = {
  /** The scenarios offered, in order. */
  readonly scenarios: readonly ScenarioChoice[];
  /** Index of the highlighted entry (Enter runs it). */
  readonly selectedIndex: number;
  /** The scenario running now, marked in the list. */
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
