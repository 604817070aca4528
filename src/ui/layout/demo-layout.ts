import { comparisonRowCount } from "../format/comparison.js";
import { wrappedRows } from "../format/text-width.js";
import { type Verdict, verdictFor } from "../format/verdict.js";
import type { RunPaneState } from "../state/run-pane-reducer.js";

/** From this many columns the two panes sit side by side; below, they stack. */
export const sideBySideMinColumns = 100;

/**
 * Below this many rows the demo draws its compact layout: verdicts in two lines without a box,
 * the comparison in one line, and the logs take whatever is left (down to nothing).
 */
export const compactBelowRows = 35;

/**
 * Rows the full comparison table takes: title, header, one per comparison row, headline, and the
 * cost under the one rule.
 */
export const comparisonTableRows = 4 + comparisonRowCount;

/** Sizes of the demo's parts for one terminal size and one state. */
export interface DemoLayout {
  readonly sideBySide: boolean;
  /** Outer width of each pane, border included. */
  readonly paneWidth: number;
  /** Text width inside a pane (border and padding removed). */
  readonly innerWidth: number;
  /** Rows each pane's event log may take so the whole frame fits the screen (may be 0). */
  readonly logRows: number;
  /** True below {@link compactBelowRows} rows, or when the full layout would not fit. */
  readonly compact: boolean;
  /** True when even the agents' status rows had to fold into one line each pane. */
  readonly foldStatus: boolean;
  /**
   * True when even folded, the wrapped verdicts do not fit (a tiny terminal): each verdict is cut
   * to two lines. The ending printed after `q` still has every word.
   */
  readonly cutVerdict: boolean;
  /** Rows the whole frame takes (always below the terminal's rows, when it can be). */
  readonly height: number;
}

/** Padding and border on each side of a pane. */
const paneHorizontalChrome = 4;
const minLogRows = 2;

/** The lines a verdict box shows: title, details, escalations. */
export function verdictTexts(verdict: Verdict): string[] {
  return [
    verdict.title,
    ...verdict.details,
    ...(verdict.escalations.length > 0
      ? ["Escalations:", ...verdict.escalations.map((line) => `- ${line}`)]
      : []),
  ];
}

/** The details line of a compact verdict: every detail (its "why") and the escalation count. */
export function compactVerdictDetails(verdict: Verdict): string {
  return [
    ...verdict.details,
    ...(verdict.escalations.length > 0 ? [`${verdict.escalations.length} escalated`] : []),
  ].join(" · ");
}

/**
 * Rows the verdict of a finished pane takes at `innerWidth`, wrapped (boxed unless compact); 2
 * when `cut` (a terminal too small even for the wrapped compact verdict: each line cut).
 */
export function verdictRows(
  pane: RunPaneState,
  innerWidth: number,
  compact = false,
  cut = false,
): number {
  if (!pane.summary) return 0;
  if (cut) return 2;
  const verdict = verdictFor(pane.summary, pane.events);
  if (compact) {
    return (
      wrappedRows(verdict.title, innerWidth) +
      wrappedRows(compactVerdictDetails(verdict), innerWidth)
    );
  }
  const width = Math.max(8, innerWidth - paneHorizontalChrome);
  return 2 + verdictTexts(verdict).reduce((sum, text) => sum + wrappedRows(text, width), 0);
}

/** How a pane is drawn besides its log. */
export interface PaneChromeOptions {
  readonly compact: boolean;
  readonly foldStatus: boolean;
  /** The compact verdict's two lines cut to the width (only when nothing else fits). */
  readonly cutVerdict?: boolean;
}

/**
 * Rows a pane takes besides its event log: border, title, the held moment (while running), agent
 * rows (while running), verdict, the failure line.
 */
export function paneChromeRows(
  pane: RunPaneState,
  innerWidth: number,
  options: PaneChromeOptions = { compact: false, foldStatus: false },
): number {
  const running = !pane.summary;
  const statusRows = running ? (options.foldStatus ? 1 : Math.max(1, pane.agents.length)) : 0;
  const momentRows = running && pane.moment ? 1 : 0;
  const errorRows = pane.error
    ? options.compact
      ? 1
      : wrappedRows(`Run failed: ${pane.error}`, innerWidth)
    : 0;
  return (
    2 +
    1 +
    momentRows +
    statusRows +
    verdictRows(pane, innerWidth, options.compact, options.cutVerdict === true) +
    errorRows
  );
}

/**
 * Lays the demo out: side by side from 100 columns, stacked below. The event logs get whatever
 * rows are left after everything else, so the frame never grows taller than the terminal: below
 * ~35 rows (or when the full layout does not fit) the layout turns compact, and the logs shrink
 * first, down to nothing, before the status rows fold into one line.
 * @param fixedRows rows outside the panes besides the comparison (header, caption, key hints)
 * @param comparison whether the comparison is shown (both runs ended)
 */
export function demoLayout(options: {
  readonly columns: number;
  readonly rows: number;
  readonly fixedRows: number;
  readonly comparison: boolean;
  readonly panes: readonly [RunPaneState, RunPaneState];
}): DemoLayout {
  const sideBySide = options.columns >= sideBySideMinColumns;
  const paneWidth = sideBySide ? Math.floor(options.columns / 2) : options.columns;
  const innerWidth = Math.max(10, paneWidth - paneHorizontalChrome);
  const [first, second] = options.panes;
  // One spare row: a frame as tall as the screen makes Ink clear the whole terminal on each update.
  const budget = options.rows - 1;

  const attempt = (compact: boolean, foldStatus: boolean, cutVerdict = false) => {
    const chrome = [first, second].map((pane) =>
      paneChromeRows(pane, innerWidth, { compact, foldStatus, cutVerdict }),
    );
    const [a = 0, b = 0] = chrome;
    const comparisonRows = options.comparison ? (compact ? 1 : comparisonTableRows) : 0;
    const free = budget - options.fixedRows - comparisonRows;
    const logRows = sideBySide ? free - Math.max(a, b) : Math.floor((free - a - b) / 2);
    const panesHeight = (sideBySide ? Math.max(a, b) : a + b) + (sideBySide ? 1 : 2) * logRows;
    return { logRows, height: options.fixedRows + comparisonRows + panesHeight };
  };

  const base = { sideBySide, paneWidth, innerWidth };
  if (options.rows >= compactBelowRows) {
    const full = attempt(false, false);
    if (full.logRows >= minLogRows) {
      return { ...base, ...full, compact: false, foldStatus: false, cutVerdict: false };
    }
  }
  const compact = attempt(true, false);
  if (compact.logRows >= 1) {
    return { ...base, ...compact, compact: true, foldStatus: false, cutVerdict: false };
  }
  const wrapped = attempt(true, true);
  const cutVerdict = wrapped.logRows < 0;
  const folded = cutVerdict ? attempt(true, true, true) : wrapped;
  const logRows = Math.max(0, folded.logRows);
  return {
    ...base,
    logRows,
    height: folded.height + (sideBySide ? 1 : 2) * (logRows - folded.logRows),
    compact: true,
    foldStatus: true,
    cutVerdict,
  };
}
