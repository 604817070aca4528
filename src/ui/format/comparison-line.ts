import type { RunMode, RunSummary } from "../../scenario/scenario-events.js";
import { comparisonHeadline } from "./comparison.js";
import { formatDuration, formatTokens } from "./duration.js";
import { paneTitles } from "./pane-titles.js";

/** "collision", "1 avoided", "no conflict": a run's outcome in a word or two. */
function outcomeWord(summary: RunSummary): string {
  if (summary.collision) return "collision";
  if (summary.conflictsAvoided > 0) return `${summary.conflictsAvoided} avoided`;
  return "no conflict";
}

function side(mode: RunMode, summary: RunSummary): string {
  const wasted =
    summary.wasted.tokens > 0 || summary.wasted.ms > 0
      ? `${formatTokens(summary.wasted.tokens)} tokens, ${formatDuration(summary.wasted.ms)} wasted`
      : "nothing wasted";
  return `${paneTitles[mode]}: ${outcomeWord(summary)}, ${wasted}`;
}

/**
 * The comparison in one line for a small terminal, takeaway first (the end is what gets cut):
 * "Shared context saved 2,600 tokens and 5.2s of wasted work. · Messages only: collision, … ·
 * Shared context: 1 avoided, nothing wasted".
 */
export function formatComparisonLine(baseline: RunSummary, shared: RunSummary): string {
  return [
    comparisonHeadline(baseline, shared, { cost: "none" }),
    side(baseline.mode, baseline),
    side(shared.mode, shared),
  ].join(" · ");
}
