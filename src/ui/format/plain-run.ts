import type { RunSummary, ScenarioEvent } from "../../scenario/scenario-events.js";
import { agentDirectoryOf } from "./agent-directory.js";
import { compareRuns, comparisonHeadline, formatComparisonTable } from "./comparison.js";
import { formatRelative } from "./duration.js";
import { describeEvent, plainEventLine } from "./event-line.js";
import { paneTitles } from "./pane-titles.js";
import type { Verdict } from "./verdict.js";

/** The verdict as plain lines: the headline, then indented details and escalations. */
export function formatVerdictPlain(verdict: Verdict): string[] {
  return [
    verdict.title,
    ...verdict.details.map((detail) => `  ${detail}`),
    ...(verdict.escalations.length > 0
      ? ["  Escalations:", ...verdict.escalations.map((line) => `    - ${line}`)]
      : []),
  ];
}

/** The header line of a run: `== Naive (message passing) · nv-1a2b3c4d · auth-jwt ==`. */
export function formatRunHeader(events: readonly ScenarioEvent[]): string {
  const start = events.find((event) => event.type === "run-start");
  if (!start) return "== (run not started) ==";
  return `== ${paneTitles[start.mode]} · ${start.runId} · ${start.scenario} · ${start.brain} ==`;
}

/** One plain line per event, stamped with its time since the run started. */
export function formatEventLinePlain(
  event: ScenarioEvent,
  events: readonly ScenarioEvent[],
): string {
  const line = describeEvent(event, agentDirectoryOf(events));
  // Times count from the run's start, as in the timeline.
  const origin = events.find((candidate) => candidate.type === "run-start")?.at ?? 0;
  return `${formatRelative(line.at - origin).padEnd(9)} ${plainEventLine(line)}`;
}

/**
 * The comparison block printed after both runs in the plain demo output.
 * @param width columns to fit the table into (80 when the output is a pipe)
 */
export function formatComparisonPlain(
  naive: RunSummary,
  statewave: RunSummary,
  width = 80,
): string[] {
  return [
    "== Comparison ==",
    ...formatComparisonTable(compareRuns(naive, statewave), width, [
      paneTitles[naive.mode],
      paneTitles[statewave.mode],
    ]),
    comparisonHeadline(naive, statewave),
  ];
}
