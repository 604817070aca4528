import { wrapText } from "../format/text-width.js";
import { verdictFor } from "../format/verdict.js";
import type { RunPaneState } from "../state/run-pane-reducer.js";

/** From this many columns the two panes sit side by side; below, they stack. */
export const sideBySideMinColumns = 100;

/** Sizes of the demo's parts for one terminal size and one state. */
export interface DemoLayout {
  readonly sideBySide: boolean;
  /** Outer width of each pane, border included. */
  readonly paneWidth: number;
  /** Text width inside a pane (border and padding removed). */
  readonly innerWidth: number;
  /** Rows each pane's event log may take so the whole frame fits the screen. */
  readonly logRows: number;
}

/** Padding and border on each side of a pane. */
const paneHorizontalChrome = 4;
const minLogRows = 2;

/** Rows the verdict box of a finished pane takes at `innerWidth`. */
export function verdictRows(pane: RunPaneState, innerWidth: number): number {
  if (!pane.summary) return pane.error ? 1 : 0;
  const verdict = verdictFor(pane.summary, pane.events);
  const width = Math.max(8, innerWidth - paneHorizontalChrome);
  const texts = [
    verdict.title,
    ...verdict.details,
    ...(verdict.escalations.length > 0
      ? ["Escalations:", ...verdict.escalations.map((line) => `- ${line}`)]
      : []),
  ];
  return 2 + texts.reduce((sum, text) => sum + wrapText(text, width).length, 0);
}

/** Rows a pane takes besides its event log: border, title, agent rows (while running), verdict. */
export function paneChromeRows(pane: RunPaneState, innerWidth: number): number {
  const statusRows = pane.summary ? 0 : Math.max(1, pane.agents.length);
  return 2 + 1 + statusRows + verdictRows(pane, innerWidth);
}

/**
 * Lays the demo out: side by side from 100 columns, stacked below; the event logs get whatever
 * rows are left after everything else, so the frame never grows taller than the terminal.
 * @param fixedRows rows outside the panes (header, key hints, comparison)
 */
export function demoLayout(options: {
  readonly columns: number;
  readonly rows: number;
  readonly fixedRows: number;
  readonly panes: readonly [RunPaneState, RunPaneState];
}): DemoLayout {
  const sideBySide = options.columns >= sideBySideMinColumns;
  const paneWidth = sideBySide ? Math.floor(options.columns / 2) : options.columns;
  const innerWidth = Math.max(10, paneWidth - paneHorizontalChrome);
  const [first, second] = options.panes;
  const chrome = [paneChromeRows(first, innerWidth), paneChromeRows(second, innerWidth)];
  // One spare row: a frame exactly as tall as the screen makes Ink clear the screen on each update.
  const free = options.rows - options.fixedRows - 1;
  const logRows = sideBySide
    ? free - Math.max(...chrome)
    : Math.floor((free - (chrome[0] ?? 0) - (chrome[1] ?? 0)) / 2);
  return { sideBySide, paneWidth, innerWidth, logRows: Math.max(minLogRows, logRows) };
}
