import { Text } from "ink";
import { useTheme } from "../contexts/theme-context.js";

/** Props of {@link KeyHints}. */
export type KeyHintsProps = {
  /** `[key, what it does]` pairs, in the order shown. */
  readonly hints: ReadonlyArray<readonly [key: string, action: string]>;
};

/** "t timeline · r run again · s scenario · q quit". */
export function KeyHints({ hints }: KeyHintsProps) {
  const theme = useTheme();
  return (
    <Text wrap="truncate-end">
      {hints.map(([key, action], index) => (
        <Text key={key}>
          {index > 0 ? <Text color={theme.text.muted}> · </Text> : null}
          <Text bold color={theme.text.accent}>
            {key}
          </Text>
          <Text color={theme.text.muted}> {action}</Text>
        </Text>
      ))}
    </Text>
  );
}
