import type { RunSummary } from "../../scenario/scenario-events.js";
import { formatDuration, formatTokens } from "./duration.js";
import { fitWidth, textWidth } from "./text-width.js";

/** One line of the naive-vs-shared-context comparison. */
export interface ComparisonRow {
  readonly label: string;
  readonly naive: string;
  readonly statewave: string;
  /** Which side did better on this line ("same" when equal or not comparable). */
  readonly better: "naive" | "statewave" | "same";
}

function betterOf(naive: number, statewave: number): ComparisonRow["better"] {
  if (naive === statewave) return "same";
  return statewave < naive ? "statewave" : "naive";
}

function outcome(summary: RunSummary): string {
  if (summary.collision) return "collision";
  if (summary.conflictsAvoided > 0) return `${summary.conflictsAvoided} avoided`;
  return "no conflict";
}

/** The comparison rows: outcome, modules built in vain, tokens and time wasted, escalations, totals. */
export function compareRuns(naive: RunSummary, statewave: RunSummary): ComparisonRow[] {
  const modules = (summary: RunSummary) =>
    summary.wastedModules.length > 0
      ? `${summary.wasted.modules} (${summary.wastedModules.join(", ")})`
      : String(summary.wasted.modules);
  return [
    {
      label: "Outcome",
      naive: outcome(naive),
      statewave: outcome(statewave),
      better:
        naive.collision === statewave.collision ? "same" : naive.collision ? "statewave" : "naive",
    },
    {
      label: "Modules built in vain",
      naive: modules(naive),
      statewave: modules(statewave),
      better: betterOf(naive.wasted.modules, statewave.wasted.modules),
    },
    {
      label: "Tokens wasted",
      naive: formatTokens(naive.wasted.tokens),
      statewave: formatTokens(statewave.wasted.tokens),
      better: betterOf(naive.wasted.tokens, statewave.wasted.tokens),
    },
    {
      label: "Time wasted",
      naive: formatDuration(naive.wasted.ms),
      statewave: formatDuration(statewave.wasted.ms),
      better: betterOf(naive.wasted.ms, statewave.wasted.ms),
    },
    {
      label: "Escalations",
      naive: String(naive.escalations),
      statewave: String(statewave.escalations),
      better: "same",
    },
    {
      label: "Total tokens",
      naive: formatTokens(naive.totals.tokens),
      statewave: formatTokens(statewave.totals.tokens),
      better: betterOf(naive.totals.tokens, statewave.totals.tokens),
    },
    {
      label: "Wall time",
      naive: formatDuration(naive.totals.ms),
      statewave: formatDuration(statewave.totals.ms),
      better: betterOf(naive.totals.ms, statewave.totals.ms),
    },
  ];
}

/** The one-sentence takeaway under the comparison. */
export function comparisonHeadline(naive: RunSummary, statewave: RunSummary): string {
  const tokens = naive.wasted.tokens - statewave.wasted.tokens;
  const ms = naive.wasted.ms - statewave.wasted.ms;
  if (tokens <= 0 && ms <= 0) return "Both pipelines wasted the same work.";
  return `Shared context saved ${formatTokens(Math.max(0, tokens))} tokens and ${formatDuration(Math.max(0, ms))} of wasted work.`;
}

/** Column headers of the comparison. */
export const comparisonColumns = {
  label: "",
  naive: "Naive",
  statewave: "Shared context",
} as const;

/**
 * The comparison as a plain text table that fits `width` columns (the values column is cut with
 * "…" when the terminal is narrow). Used by the non-TTY output; the Ink view lays out the same rows.
 */
export function formatComparisonTable(rows: readonly ComparisonRow[], width: number): string[] {
  const labelWidth = Math.max(...rows.map((row) => textWidth(row.label)));
  const valueWidth = Math.max(8, Math.floor((width - labelWidth - 4) / 2));
  const line = (label: string, naive: string, statewave: string) =>
    `${fitWidth(label, labelWidth)}  ${fitWidth(naive, valueWidth)}  ${fitWidth(statewave, valueWidth)}`.trimEnd();
  return [
    line(comparisonColumns.label, comparisonColumns.naive, comparisonColumns.statewave),
    ...rows.map((row) => line(row.label, row.naive, row.statewave)),
  ];
}
