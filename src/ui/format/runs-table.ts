import type { RunStopState } from "../../scenario/run-record.js";
import type { RunMode, RunSummary } from "../../scenario/scenario-events.js";
import { formatUtcDateTime, plural } from "./duration.js";
import { outcomeWords } from "./mode-labels.js";
import { fitWidth, textWidth, truncate } from "./text-width.js";

/** One run as `shared-ctx runs` lists it. */
export interface RunListing {
  readonly runId: string;
  readonly mode?: RunMode;
  readonly scenario?: string;
  /** What the agents were asked to do (a `--task` run's scenario is only "custom"). */
  readonly task?: string;
  /** ISO-8601 UTC of the run's first episode. */
  readonly startedAt?: string;
  /** Absent while the run has not ended (or never will: it was interrupted or failed). */
  readonly summary?: RunSummary;
  /** How a run that never reached run-end stopped, when it said so. */
  readonly stop?: { readonly state: RunStopState; readonly reason: string };
}

/**
 * "collision", "1 conflict avoided", "no conflict", "interrupted", "failed: <reason>", or "not
 * finished" (still running, or its process died without a word).
 */
export function runOutcome(listing: RunListing): string {
  const summary = listing.summary;
  if (!summary) {
    if (listing.stop?.state === "interrupted") return "interrupted";
    if (listing.stop?.state === "failed") return `failed: ${listing.stop.reason}`;
    return "not finished";
  }
  const words = outcomeWords(summary);
  if (words === "no conflict" && summary.escalations > 0) {
    return `${plural(summary.escalations, "escalation")}`;
  }
  return words;
}

/** How an outcome reads: the views colour it by its tone. */
export type OutcomeTone = "bad" | "good" | "warning" | "neutral";

/** The tone of a run's outcome: a collision or a failure is bad, avoided conflicts good. */
export function outcomeTone(listing: RunListing): OutcomeTone {
  const summary = listing.summary;
  if (!summary) return listing.stop?.state === "failed" ? "bad" : "warning";
  if (summary.collision) return "bad";
  if ((summary.referee?.openDisputes.length ?? summary.openDisputes ?? 0) > 0) return "warning";
  if (summary.conflictsAvoided > 0) return "good";
  return summary.escalations > 0 ? "warning" : "neutral";
}

/** Colours a cell for a terminal; the identity for pipes. */
export type PaintCell = (text: string, tone: OutcomeTone) => string;

/**
 * The runs as a plain table fitting `width` columns, newest first as given: id, mode, scenario,
 * when, outcome, then the task in whatever width is left. `paint` colours the outcome (a TTY).
 */
export function formatRunsTable(
  runs: readonly RunListing[],
  width: number,
  paint: PaintCell = (text) => text,
): string[] {
  if (runs.length === 0) {
    return ["No runs yet. Start one with `shared-ctx demo` or `shared-ctx run --mode statewave`."];
  }
  const rows = runs.map((run) => [
    run.runId,
    run.mode ?? "?",
    run.scenario ?? "?",
    run.startedAt ? formatUtcDateTime(run.startedAt) : "?",
    runOutcome(run),
  ]);
  const headers = ["Run id", "Mode", "Scenario", "When (UTC)", "Outcome"];
  const widths = headers.map((header, index) =>
    Math.max(textWidth(header), ...rows.map((row) => textWidth(row[index] ?? ""))),
  );
  // The outcome column gives way first on a narrow terminal (a failure's reason can be long),
  // then the scenario.
  const cap = (index: number, min: number) => {
    const total = widths.reduce((sum, value) => sum + value, 0) + 2 * (widths.length - 1);
    const current = widths[index];
    if (total > width && current !== undefined)
      widths[index] = Math.max(min, current - (total - width));
  };
  cap(4, 18);
  cap(2, 8);
  const fixed = widths.reduce((sum, value) => sum + value, 0) + 2 * widths.length;
  const taskWidth = width - fixed;
  const withTask = taskWidth >= 12;
  const line = (cells: readonly string[], task: string | undefined, tone?: OutcomeTone) =>
    [
      ...cells.map((cell, index) => {
        const fitted = fitWidth(cell, widths[index] ?? 0);
        return index === 4 && tone ? paint(fitted, tone) : fitted;
      }),
      ...(withTask && task !== undefined ? [truncate(task, taskWidth)] : []),
    ]
      .join("  ")
      .trimEnd();
  return [
    line(headers, "Task"),
    ...rows.map((row, index) => {
      const run = runs[index];
      return line(row, run?.task ?? "", run ? outcomeTone(run) : undefined);
    }),
  ];
}
