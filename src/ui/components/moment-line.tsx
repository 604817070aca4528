import { Text } from "ink";
import { useTheme } from "../contexts/theme-context.js";
import type { PaneMoment } from "../format/moment.js";

/** Props of {@link MomentLine}. */
export type MomentLineProps = {
  /** The moment the pane holds until its verdict (`runPaneReducer`). */
  readonly moment: PaneMoment;
};

/**
 * The one line a pane holds on screen until its verdict: a build contradicting a decision in the
 * error colour, a skip or cancel highlighted (inverse, so it stands out without colour too).
 */
export function MomentLine({ moment }: MomentLineProps) {
  const theme = useTheme();
  const prevented = moment.kind === "prevented";
  return (
    <Text
      bold
      wrap="truncate-end"
      inverse={prevented}
      color={prevented ? theme.status.success : theme.status.error}
    >
      {moment.text}
    </Text>
  );
}
