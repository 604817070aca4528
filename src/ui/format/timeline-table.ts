import { formatDuration, formatTokens, formatUtcDateTime, plural } from "./duration.js";
import { outcomeWords } from "./mode-labels.js";
import type { MemoryRow, RunTimeline, TimelineRow } from "./run-timeline.js";
import { fitWidth, textWidth, wrapText } from "./text-width.js";

/** Which clock the table's Time column is on. */
export type TimelineClock = "scenario" | "utc";

/** The table's header cells. */
export const timelineHeaders = {
  time: "Time",
  agent: "Agent",
  type: "Event type",
  content: "Content",
} as const;

/** The Time header for a clock. */
function timeHeader(clock: TimelineClock): string {
  return clock === "utc" ? "Time (UTC)" : timelineHeaders.time;
}

/** Column widths for the rows at a terminal width; the content column takes what is left. */
export interface TimelineColumns {
  readonly clock: TimelineClock;
  readonly time: number;
  readonly agent: number;
  readonly type: number;
  readonly content: number;
}

type Cells = {
  readonly time: string;
  readonly agent: string;
  readonly type: string;
  readonly content: string;
};

const gap = "  ";
const minContent = 16;
const memoryIndent = " ".repeat(14);
/** From this width the table has room for long event types. */
const wideTable = 100;

function widest(values: readonly string[], header: string, cap: number): number {
  return Math.min(cap, Math.max(textWidth(header), ...values.map(textWidth)));
}

/** The columns before the content, with their gaps. */
function fixedWidth(columns: Pick<TimelineColumns, "time" | "agent" | "type">): number {
  return columns.time + columns.agent + columns.type + 3 * gap.length;
}

/** A row's Time cell on a clock. */
export function rowTime(row: TimelineRow, clock: TimelineClock): string {
  return clock === "utc" ? row.time : row.at;
}

/** Widths that fit `width` columns: fixed columns sized to their longest value, content wraps. */
export function timelineColumns(
  rows: readonly TimelineRow[],
  width: number,
  clock: TimelineClock = "scenario",
): TimelineColumns {
  const wide = width >= wideTable;
  const fixed = {
    time: widest(
      rows.map((row) => rowTime(row, clock)),
      timeHeader(clock),
      12,
    ),
    agent: widest(
      rows.map((row) => row.agent),
      timelineHeaders.agent,
      14,
    ),
    type: widest(
      rows.map((row) => row.type),
      timelineHeaders.type,
      wide ? 22 : 14,
    ),
  };
  return { clock, ...fixed, content: Math.max(minContent, width - fixedWidth(fixed)) };
}

/**
 * The widths of a table whose rows came in parts (page by page): each fixed column as wide as the
 * widest part's, so the result equals {@link timelineColumns} over all the rows at once.
 */
export function widerTimelineColumns(
  left: TimelineColumns,
  right: TimelineColumns,
  width: number,
): TimelineColumns {
  const fixed = {
    time: Math.max(left.time, right.time),
    agent: Math.max(left.agent, right.agent),
    type: Math.max(left.type, right.type),
  };
  return { clock: left.clock, ...fixed, content: Math.max(minContent, width - fixedWidth(fixed)) };
}

/** Column widths for rows not known in advance (`timeline --follow`). */
export function followColumns(width: number, clock: TimelineClock = "scenario"): TimelineColumns {
  const fixed = {
    time: clock === "utc" ? 12 : 8,
    agent: 12,
    // Wide enough for "architectural_decision" where there is room, as in the full table.
    type: width >= wideTable ? 22 : 16,
  };
  return { clock, ...fixed, content: Math.max(minContent, width - fixedWidth(fixed)) };
}

function cellsLine(columns: TimelineColumns, cells: Cells): string {
  return [
    fitWidth(cells.time, columns.time),
    fitWidth(cells.agent, columns.agent),
    fitWidth(cells.type, columns.type),
    cells.content,
  ]
    .join(gap)
    .trimEnd();
}

/** How the legend line starts (the Ink view draws it muted). */
export const timelineLegendStart = "Time:";

/** The line above the table that says which clock the Time column is on. */
export function formatTimelineLegend(columns: TimelineColumns): string {
  return columns.clock === "utc"
    ? `${timelineLegendStart} when each row was written (UTC, wall clock)`
    : `${timelineLegendStart} since the run started, on the run's own clock (--utc for wall-clock time)`;
}

/** The legend (which clock it is), the header line and the rule under it. */
export function formatTimelineHeader(columns: TimelineColumns, width: number): string[] {
  const total = fixedWidth(columns) + columns.content;
  return [
    ...wrapText(formatTimelineLegend(columns), width),
    cellsLine(columns, { ...timelineHeaders, time: timeHeader(columns.clock) }),
    "─".repeat(Math.min(width, total)),
  ];
}

/** One row laid out in `columns`: its first line, then its content's continuation lines. */
export function formatTimelineRow(row: TimelineRow, columns: TimelineColumns): string[] {
  const [first = "", ...rest] = wrapText(row.content, columns.content);
  const blank = { time: "", agent: "", type: "" };
  return [
    cellsLine(columns, {
      time: rowTime(row, columns.clock),
      agent: row.agent,
      type: row.type,
      content: first,
    }),
    ...rest.map((more) => cellsLine(columns, { ...blank, content: more })),
  ];
}

/** Rows laid out in `columns`, each row's content wrapped into the last column. */
export function formatTimelineRows(
  rows: readonly TimelineRow[],
  columns: TimelineColumns,
): string[] {
  return rows.flatMap((row) => formatTimelineRow(row, columns));
}

/** The header line and a rule, then each row with its content wrapped into the last column. */
export function formatTimelineTable(
  rows: readonly TimelineRow[],
  width: number,
  clock: TimelineClock = "scenario",
): string[] {
  const columns = timelineColumns(rows, width, clock);
  return [
    ...formatTimelineHeader(columns, width),
    ...(rows.length > 0 ? formatTimelineRows(rows, columns) : ["(no events match)"]),
  ];
}

function memoryLine(memory: MemoryRow): string {
  const authority = memory.authority ? `, authority ${memory.authority}` : "";
  const disputes = memory.disputes ? ` (disputes ${memory.disputes.join(", ")})` : "";
  return `[${memory.kind}, confidence ${memory.confidence.toFixed(2)}${authority}] ${memory.content}${disputes}`;
}

/**
 * `lead` then `body` wrapped to `width`; continuation lines start with `indent` instead of `lead`.
 * (wrapText collapses whitespace, so the lead's own spacing is kept outside it.)
 */
function wrapIndented(lead: string, body: string, width: number, indent = "  "): string[] {
  const [first = "", ...rest] = wrapText(
    body,
    Math.max(minContent, width - Math.max(textWidth(lead), indent.length)),
  );
  return [lead + first, ...rest.map((line) => indent + line)];
}

/** The report's first lines: the run, its mode and scenario, its outcome. */
export function formatTimelineHeading(timeline: RunTimeline, width: number): string[] {
  const heading = [
    `Run ${timeline.runId}`,
    timeline.mode ? `mode ${timeline.mode}` : undefined,
    timeline.scenario ? `scenario ${timeline.scenario}` : undefined,
    timeline.startedAt ? `started ${formatUtcDateTime(timeline.startedAt)}` : undefined,
  ]
    .filter((part) => part !== undefined)
    .join(" · ");
  const summary = timeline.summary;
  const outcome = summary
    ? `Outcome: ${outcomeWords(summary)}; wasted ${plural(summary.wasted.modules, "module")}, ${formatTokens(summary.wasted.tokens)} tokens, ${formatDuration(summary.wasted.ms)}; total ${formatTokens(summary.totals.tokens)} tokens, ${formatDuration(summary.totals.ms)}`
    : "Outcome: the run has not ended (yet)";
  return [...wrapIndented("", heading, width), ...wrapIndented("", outcome, width)];
}

/**
 * The whole report: a heading, the table, then the final memory state, escalations with their
 * resolutions, and which agent read what. Plain lines: the Ink view shows the same lines.
 */
export function formatTimelineReport(
  timeline: RunTimeline,
  width: number,
  clock: TimelineClock = "scenario",
): string[] {
  return [
    ...formatTimelineHeading(timeline, width),
    "",
    ...formatTimelineTable(timeline.rows, width, clock),
    ...formatTimelineSections(timeline, width),
  ];
}

/** The sections after the table: final memory state, escalations, who read what. */
export function formatTimelineSections(timeline: RunTimeline, width: number): string[] {
  const section = (title: string, body: string[]) => [
    "",
    title,
    ...(body.length > 0 ? body : ["  (none)"]),
  ];
  return [
    ...section(
      `Final memory state: ${timeline.activeMemories.length} active, ${timeline.supersededMemories.length} superseded`,
      [
        ...timeline.activeMemories.flatMap((m) =>
          wrapIndented("  active      ", memoryLine(m), width, memoryIndent),
        ),
        ...timeline.supersededMemories.flatMap((m) =>
          wrapIndented("  superseded  ", memoryLine(m), width, memoryIndent),
        ),
      ],
    ),
    ...section(
      "Escalations",
      timeline.escalations.flatMap((line) => wrapIndented("  - ", line, width, "    ")),
    ),
    ...section(
      "Who read what",
      timeline.reads.flatMap((read) =>
        wrapIndented(
          "  ",
          `${read.scenarioRelative} ${read.agent} read ${plural(read.memoryCount, "memory", "memories")} for "${read.task}"${
            read.decisions.length > 0 ? `: ${read.decisions.join("; ")}` : ""
          }${read.disputes.length > 0 ? ` (disputes: ${read.disputes.join("; ")})` : ""}`,
          width,
          "    ",
        ),
      ),
    ),
  ];
}
