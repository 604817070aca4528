import type { LineTone } from "../format/event-line.js";
import type { Theme } from "../theme/tokens.js";

/** The theme colour for a line's tone. */
export function toneColor(theme: Theme, tone: LineTone): string | undefined {
  switch (tone) {
    case "decision":
      return theme.text.accent;
    case "skip":
    case "success":
      return theme.status.success;
    case "warning":
      return theme.status.warning;
    case "error":
      return theme.status.error;
    case "muted":
      return theme.text.muted;
    case "normal":
      return theme.text.primary;
  }
}
