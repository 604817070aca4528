import type { RunStopState } from "../../scenario/run-record.js";
import type { RunMode, RunSummary } from "../../scenario/scenario-events.js";
import { formatUtcDateTime, plural } from "./duration.js";
import { fitWidth, textWidth } from "./text-width.js";

/** One run as `shared-ctx runs` lists it. */
export interface RunListing {
  readonly runId: string;
  readonly mode?: RunMode;
  readonly scenario?: string;
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
  if (summary.collision) return "collision";
  if (summary.conflictsAvoided > 0)
    return `${plural(summary.conflictsAvoided, "conflict")} avoided`;
  if (summary.escalations > 0) return `${plural(summary.escalations, "escalation")}`;
  return "no conflict";
}

/** The runs as a plain table fitting `width` columns, newest first as given. */
export function formatRunsTable(runs: readonly RunListing[], width: number): string[] {
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
  // The scenario column gives way first on a narrow terminal.
  const total = widths.reduce((sum, value) => sum + value, 0) + 2 * (widths.length - 1);
  if (total > width && widths[2] !== undefined)
    widths[2] = Math.max(8, widths[2] - (total - width));
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, index) => fitWidth(cell, widths[index] ?? 0))
      .join("  ")
      .trimEnd();
  return [line(headers), ...rows.map(line)];
}
