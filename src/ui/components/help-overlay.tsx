import { Box, Text } from "ink";
import { useTheme } from "../contexts/theme-context.js";
import { textWidth } from "../format/text-width.js";

/** Props of {@link HelpOverlay}. */
export type HelpOverlayProps = {
  /** `[keys, what they do]`, in the order shown. */
  readonly keys: ReadonlyArray<readonly [keys: string, action: string]>;
  /** The overlay's outer width. */
  readonly width: number;
};

/** The `?` overlay: every key of the demo and what it does. */
export function HelpOverlay({ keys, width }: HelpOverlayProps) {
  const theme = useTheme();
  const keyWidth = Math.max(...keys.map(([key]) => textWidth(key))) + 2;
  return (
    <Box
      flexDirection="column"
      borderStyle="round"
      borderColor={theme.border.default}
      paddingX={1}
      width={width}
    >
      <Text bold>Keys</Text>
      {keys.map(([key, action]) => (
        <Box key={key}>
          <Box width={keyWidth} flexShrink={0}>
            <Text bold color={theme.text.accent}>
              {key}
            </Text>
          </Box>
          <Text wrap="truncate-end">{action}</Text>
        </Box>
      ))}
      <Text color={theme.text.muted}>? or esc closes this</Text>
    </Box>
  );
}
