import type { RunTimeline, TimelineRow } from "./run-timeline.js";
import {
  formatTimelineHeader,
  formatTimelineHeading,
  formatTimelineRow,
  formatTimelineSections,
  type TimelineClock,
  timelineColumns,
} from "./timeline-table.js";

/** One line of the inspector's table, with the agent whose colour it takes. */
export interface InspectorLine {
  readonly text: string;
  /** The row's agent (null: the run, the project, the shared state). */
  readonly agentId: string | null;
  /** True for the first line of a row (the rest are its wrapped content). */
  readonly first: boolean;
  /** True for a section's title after the table ("Final memory state", "Escalations", …). */
  readonly sectionTitle?: boolean;
}

/** The inspector's page for one set of choices. */
export interface InspectorPage {
  /** The run, its outcome, the legend, the header and its rule: always on screen. */
  readonly heading: readonly string[];
  /** The table's lines for the rows that pass the agent and search filters. */
  readonly lines: readonly InspectorLine[];
  /** How many rows passed. */
  readonly rowCount: number;
  /**
   * Where each section after the table starts in `lines` (the `s` key jumps between them): the
   * final memory state, the escalations, who read what, as piped output has them.
   */
  readonly sectionStarts: readonly number[];
}

/** The titles of the sections after the table, as `formatTimelineSections` words them. */
const sectionTitle = /^(Final memory state|Escalations|Who read what)\b/;

/**
 * The line to scroll to for the next section after `scroll` (the top again after the last), with
 * the scroll clamped to `maxScroll` as the view clamps it.
 */
export function nextSectionLine(page: InspectorPage, scroll: number, maxScroll: number): number {
  const next = page.sectionStarts.find((start) => Math.min(start, maxScroll) > scroll);
  return next === undefined ? 0 : Math.min(next, maxScroll);
}

/** The agents `a` cycles through, in the order the run announced them. */
export function inspectorAgents(timeline: RunTimeline): Array<{ id: string; name: string }> {
  const seen = new Map<string, string>();
  for (const row of timeline.rows) {
    if (row.agentId && !seen.has(row.agentId)) seen.set(row.agentId, row.agent);
  }
  return [...seen].map(([id, name]) => ({ id, name }));
}

function matchesSearch(row: TimelineRow, search: string): boolean {
  if (!search) return true;
  const wanted = search.toLowerCase();
  return [row.agent, row.type, row.content].some((cell) => cell.toLowerCase().includes(wanted));
}

/** The inspector's heading and table lines at `width`, for an agent (or all) and a search. */
export function inspectorPage(
  timeline: RunTimeline,
  options: {
    readonly width: number;
    readonly clock: TimelineClock;
    readonly agentId?: string;
    readonly search: string;
    /**
     * Append the sections after the table. Off while following a run in progress: the newest
     * rows, not the sections, are what follow keeps at the bottom. @default true
     */
    readonly sections?: boolean;
  },
): InspectorPage {
  const rows = timeline.rows.filter(
    (row) =>
      (options.agentId === undefined || row.agentId === options.agentId) &&
      matchesSearch(row, options.search),
  );
  // Columns from all rows, so they do not jump when a filter changes.
  const columns = timelineColumns(timeline.rows, options.width, options.clock);
  const table: InspectorLine[] = rows.flatMap((row) =>
    formatTimelineRow(row, columns).map((text, index) => ({
      text,
      agentId: row.agentId,
      first: index === 0,
    })),
  );
  // The sections piped output has after the table, whatever the filters: they answer "who knew
  // what, when" for the whole run.
  const sections: InspectorLine[] = (
    options.sections === false ? [] : formatTimelineSections(timeline, options.width)
  ).map((text) => ({
    text,
    agentId: null,
    first: false,
    ...(sectionTitle.test(text) ? { sectionTitle: true } : {}),
  }));
  const lines = [...table, ...sections];
  return {
    heading: [
      ...formatTimelineHeading(timeline, options.width),
      ...formatTimelineHeader(columns, options.width),
    ],
    lines,
    rowCount: rows.length,
    sectionStarts: lines.flatMap((line, index) => (line.sectionTitle ? [index] : [])),
  };
}
