import { Box, Text } from "ink";
import { useTheme } from "../contexts/theme-context.js";
import { formatSubjectView, isEmptySubjectView, type SubjectView } from "../format/subject-view.js";
import type { Theme } from "../theme/tokens.js";

/** Props of {@link SubjectWatchView}. */
export type SubjectWatchViewProps = {
  /** The subject as it stands (`buildSubjectView`). */
  readonly view: SubjectView;
  /** Terminal rows: the view never draws more (one spare, then the status line). */
  readonly rows: number;
  /** Set while the store cannot be read (the view keeps the last state and says so). */
  readonly error?: string;
};

/** The colour of a section by its title: disputes warn, stale reads are errors. */
function sectionColor(theme: Theme, line: string): string | undefined {
  if (line.startsWith("Open disputes") && !line.endsWith("(0)")) return theme.status.warning;
  if (line.startsWith("Read before it changed") && !line.endsWith("(0)")) return theme.status.error;
  return theme.text.accent;
}

const sectionTitle =
  /^(Working on|Decisions|Superseded|Open disputes|Read before it changed|Edits refused) \(/;

/** `shared-ctx watch <subject>`: who works on what, decisions, disputes, stale reads, live. */
export function SubjectWatchView({ view, rows, error }: SubjectWatchViewProps) {
  const theme = useTheme();
  const lines = formatSubjectView(view);
  const room = Math.max(1, rows - 3);
  const shown = lines.slice(0, room);
  return (
    <Box flexDirection="column">
      {shown.map((line, index) => {
        const title = sectionTitle.test(line);
        return (
          <Text
            // The lines of one state are fixed: their position is their identity.
            // biome-ignore lint/suspicious/noArrayIndexKey: see above.
            key={index}
            wrap="truncate-end"
            bold={index === 0 || title}
            color={
              title
                ? sectionColor(theme, line)
                : line.includes("(none)")
                  ? theme.text.muted
                  : undefined
            }
          >
            {line || " "}
          </Text>
        );
      })}
      {lines.length > room ? (
        <Text color={theme.text.muted}>
          … {lines.length - room} more lines (a taller terminal shows them)
        </Text>
      ) : null}
      <Text color={error ? theme.status.error : theme.text.muted} wrap="truncate-end">
        {error
          ? `cannot read the store: ${error}`
          : isEmptySubjectView(view)
            ? `nothing written to ${view.subjectId} yet · watching for the first write · q quit`
            : "watching for new writes · q quit"}
      </Text>
    </Box>
  );
}
