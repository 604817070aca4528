import { Box, Text } from "ink";
import { useTheme } from "../contexts/theme-context.js";
import type { Verdict, VerdictKind } from "../format/verdict.js";
import type { Theme } from "../theme/tokens.js";

/** Props of {@link VerdictBox}. */
export type VerdictBoxProps = {
  /** What the run amounts to (`verdictFor`): its kind picks the box's colour. */
  readonly verdict: Verdict;
};

/** The colour of a verdict of this kind: the box, the compact headline, the quit summary. */
export function verdictColor(theme: Theme, kind: VerdictKind): string | undefined {
  switch (kind) {
    case "collision":
      return theme.status.error;
    case "unresolved":
      return theme.status.warning;
    case "avoided":
      return theme.status.success;
    case "escalated":
      return theme.status.warning;
    case "clean":
      return theme.border.default;
  }
}

/** The boxed verdict a pane shows when its run has ended, with escalations when there were any. */
export function VerdictBox({ verdict }: VerdictBoxProps) {
  const theme = useTheme();
  const color = verdictColor(theme, verdict.kind);
  return (
    <Box borderStyle="double" borderColor={color} flexDirection="column" paddingX={1}>
      <Text bold color={color}>
        {verdict.title}
      </Text>
      {verdict.details.map((detail) => (
        <Text key={detail}>{detail}</Text>
      ))}
      {verdict.escalations.length > 0 ? (
        <>
          <Text color={theme.status.warning}>Escalations:</Text>
          {verdict.escalations.map((line) => (
            <Text key={line}>- {line}</Text>
          ))}
        </>
      ) : null}
    </Box>
  );
}
