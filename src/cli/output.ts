import type { RunSummary, ScenarioEvent } from "../scenario/scenario-events.js";
import { formatDuration, formatTokens, plural } from "../ui/format/duration.js";
import { formatEventLinePlain, formatRunHeader } from "../ui/format/plain-run.js";
import type { OutputStream } from "./cli-deps.js";

/**
 * The plain and JSON output of `shared-ctx run`, from the same event stream the Ink UI consumes.
 * Plain lines are for pipes and CI; `--json` is one document for scripts.
 */

/** Prints each event as one stamped line as it arrives (and the run header first). */
export function createPlainRunPrinter(stream: OutputStream): (event: ScenarioEvent) => void {
  const events: ScenarioEvent[] = [];
  return (event) => {
    events.push(event);
    if (event.type === "run-start") {
      stream.write(`${formatRunHeader(events)}\nTask: ${event.task}\n`);
      return;
    }
    if (event.type === "run-end") return;
    stream.write(`${formatEventLinePlain(event, events)}\n`);
  };
}

/** The run summary as aligned lines. */
export function formatRunSummary(summary: RunSummary): string[] {
  const collision = summary.collision ? "yes — found by review after the work was done" : "no";
  const rows: Array<[string, string]> = [
    ["Collision", collision],
    ["Conflicts avoided", String(summary.conflictsAvoided)],
    ["Escalations", String(summary.escalations)],
    [
      "Built in vain",
      summary.wasted.modules > 0
        ? `${plural(summary.wasted.modules, "module")} (${summary.wastedModules.join(", ")})`
        : "0 modules",
    ],
    [
      "Wasted",
      `${formatTokens(summary.wasted.tokens)} tokens, ${formatDuration(summary.wasted.ms)}`,
    ],
    [
      "Totals",
      `${formatTokens(summary.totals.tokens)} tokens, ${formatDuration(summary.totals.ms)} (scenario time)`,
    ],
    ["Brain", summary.brain],
    ["Timeline", `shared-ctx timeline ${summary.runId}`],
  ];
  const width = Math.max(...rows.map(([label]) => label.length)) + 1;
  return [
    `Summary — ${summary.mode === "naive" ? "naive (message passing)" : "statewave (shared context)"}, scenario ${summary.scenario}, run ${summary.runId}`,
    ...rows.map(([label, value]) => `  ${`${label}:`.padEnd(width + 1)} ${value}`),
  ];
}

/** Writes the summary block. */
export function writeRunSummary(stream: OutputStream, summary: RunSummary): void {
  stream.write(`\n${formatRunSummary(summary).join("\n")}\n`);
}

/** The `--json` document: the summary's fields plus every event. */
export interface RunJsonDocument extends RunSummary {
  readonly events: readonly ScenarioEvent[];
}

/** Writes the `--json` document (one JSON value, pretty-printed, then a new line). */
export function writeRunJson(
  stream: OutputStream,
  summary: RunSummary,
  events: readonly ScenarioEvent[],
): void {
  const document: RunJsonDocument = { ...summary, events };
  stream.write(`${JSON.stringify(document, null, 2)}\n`);
}
