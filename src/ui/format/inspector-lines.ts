import type { RunTimeline, TimelineRow } from "./run-timeline.js";
import {
  formatTimelineHeader,
  formatTimelineHeading,
  formatTimelineRow,
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
}

/** The inspector's page for one set of choices. */
export interface InspectorPage {
  /** The run, its outcome, the legend, the header and its rule: always on screen. */
  readonly heading: readonly string[];
  /** The table's lines for the rows that pass the agent and search filters. */
  readonly lines: readonly InspectorLine[];
  /** How many rows passed. */
  readonly rowCount: number;
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
  },
): InspectorPage {
  const rows = timeline.rows.filter(
    (row) =>
      (options.agentId === undefined || row.agentId === options.agentId) &&
      matchesSearch(row, options.search),
  );
  // Columns from all rows, so they do not jump when a filter changes.
  const columns = timelineColumns(timeline.rows, options.width, options.clock);
  return {
    heading: [
      ...formatTimelineHeading(timeline, options.width),
      ...formatTimelineHeader(columns, options.width),
    ],
    lines: rows.flatMap((row) =>
      formatTimelineRow(row, columns).map((text, index) => ({
        text,
        agentId: row.agentId,
        first: index === 0,
      })),
    ),
    rowCount: rows.length,
  };
}
