import type { RunSummary } from "../../scenario/scenario-events.js";
import type { RunPaneState } from "../state/run-pane-reducer.js";
import { type ComparisonRow, compareRuns, comparisonHeadline } from "./comparison.js";
import { paneTitles } from "./pane-titles.js";
import { formatVerdictPlain } from "./plain-run.js";
import { fitWidth, textWidth, wrapText } from "./text-width.js";
import { verdictFor } from "./verdict.js";

/**
 * What the demo leaves in the terminal after `q`: both verdicts with every "why", the comparison
 * table and where to look next, as plain lines wrapped to the terminal's width. Written after the
 * live UI is gone, as ordinary output, so it stays on screen and in the scrollback whatever the
 * terminal's height (a live frame taller than the screen would be cut or cleared).
 */

/** Options of {@link formatDemoEnding}. */
export interface DemoEndingOptions {
  /** Terminal columns: no line is wider. */
  readonly width: number;
  /** The scenario the last round played. */
  readonly scenario: string;
  /** The command that shows a run's timeline, with the store flags the demo ran with. */
  readonly timelineCommand: (runId: string) => string;
}

/**
 * Wraps one line to `width`, continuation rows indented like the line itself (plus two), so a
 * wrapped verdict detail still reads as one item.
 */
export function wrapIndented(line: string, width: number): string[] {
  const indent = /^ */.exec(line)?.[0].length ?? 0;
  if (textWidth(line) <= width) return [line];
  const body = line.slice(indent);
  const first = wrapText(body, Math.max(8, width - indent));
  const [head = "", ...rest] = first;
  if (rest.length === 0) return [`${" ".repeat(indent)}${head}`];
  const hanging = Math.min(indent + 2, Math.max(0, width - 8));
  const tail = wrapText(rest.join(" "), Math.max(8, width - hanging));
  return [`${" ".repeat(indent)}${head}`, ...tail.map((part) => `${" ".repeat(hanging)}${part}`)];
}

/**
 * The comparison as a table whose cells wrap instead of being cut: side by side while each value
 * column has room for a phrase, else one block per row (label, then each side).
 */
export function formatComparisonWrapped(
  rows: readonly ComparisonRow[],
  width: number,
  titles: readonly [string, string],
): string[] {
  const labelWidth = Math.max(...rows.map((row) => textWidth(row.label)));
  const valueWidth = Math.floor((width - labelWidth - 4) / 2);
  if (valueWidth < 16) {
    return rows.flatMap((row) => [
      row.label,
      ...wrapIndented(`  ${titles[0]}: ${row.naive}`, width),
      ...wrapIndented(`  ${titles[1]}: ${row.statewave}`, width),
    ]);
  }
  const line = (label: string, left: string, right: string) =>
    `${fitWidth(label, labelWidth)}  ${fitWidth(left, valueWidth)}  ${right}`.trimEnd();
  const table = [line("", titles[0], titles[1])];
  for (const row of rows) {
    const left = wrapText(row.naive, valueWidth);
    const right = wrapText(row.statewave, valueWidth);
    const height = Math.max(left.length, right.length);
    for (let index = 0; index < height; index += 1) {
      table.push(line(index === 0 ? row.label : "", left[index] ?? "", right[index] ?? ""));
    }
  }
  return table;
}

function paneLines(pane: RunPaneState): string[] {
  const title = `== ${paneTitles[pane.mode]}${pane.runId ? ` · ${pane.runId}` : ""} ==`;
  if (pane.summary) return [title, ...formatVerdictPlain(verdictFor(pane.summary, pane.events))];
  if (pane.error) return [title, `Run failed: ${pane.error}`];
  return [title, pane.runId ? "Stopped before its end." : "Not started."];
}

/** The ending's lines, none wider than `options.width` but the timeline command (copied whole). */
export function formatDemoEnding(
  panes: readonly [RunPaneState, RunPaneState],
  options: DemoEndingOptions,
): string[] {
  const width = Math.max(20, options.width);
  const [baseline, shared] = panes;
  const lines: string[] = [`shared-ctx demo · scenario ${options.scenario}`, ""];
  for (const pane of panes) lines.push(...paneLines(pane), "");
  const both: [RunSummary, RunSummary] | undefined =
    baseline.summary && shared.summary ? [baseline.summary, shared.summary] : undefined;
  if (both) {
    lines.push(
      "== Comparison ==",
      ...formatComparisonWrapped(compareRuns(...both), width, [
        paneTitles[both[0].mode],
        paneTitles[both[1].mode],
      ]),
      comparisonHeadline(...both),
      "",
    );
  }
  const wrapped = lines.flatMap((line) => (line === "" ? [""] : wrapIndented(line, width)));
  if (!shared.runId) return wrapped;
  // The command on a line of its own and never wrapped: it is there to be copied whole.
  return [
    ...wrapped,
    "Timeline of the shared-context run:",
    `  ${options.timelineCommand(shared.runId)}`,
  ];
}
