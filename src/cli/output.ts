import type { RunSummary, ScenarioEvent } from "../scenario/scenario-events.js";
import type { RealTime } from "../scenario/scenario-runner.js";
import { formatCommandHint, type StoreFlags } from "../ui/format/command-hint.js";
import { formatDuration, formatTokens, plural } from "../ui/format/duration.js";
import {
  describeCollisionCause,
  formatAvoidedBy,
  formatCost,
  modeDescriptions,
} from "../ui/format/mode-labels.js";
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

/**
 * The run summary as aligned lines. Scenario time (the outcome) and real time (the machine) are
 * kept apart and named as such.
 */
export function formatRunSummary(
  summary: RunSummary,
  real?: RealTime,
  storeFlags: StoreFlags = {},
): string[] {
  const cause = summary.collisionCause
    ? `; cause: ${describeCollisionCause(summary.collisionCause)}`
    : "";
  const collision = summary.collision
    ? `yes — found by review after the work was done${cause}`
    : "no";
  const avoidedBy = formatAvoidedBy(summary.avoidedBy ?? {});
  const read = summary.read ?? { tokens: 0, largest: 0, reads: 0 };
  const rows: Array<[string, string]> = [
    ["Collision", collision],
    ["Conflicts avoided", `${summary.conflictsAvoided}${avoidedBy ? ` (${avoidedBy})` : ""}`],
    ...((summary.openDisputes ?? 0) > 0
      ? [
          ["Open disputes", `${summary.openDisputes} (decided differently; nobody settled it)`] as [
            string,
            string,
          ],
        ]
      : []),
    ["Escalations", String(summary.escalations)],
    // The one cost rule (docs/runner.md, *Cost*): the same charge in every mode.
    ["Cost", formatCost(summary.cost)],
    [
      "Context read",
      `${formatTokens(read.tokens)} tokens over ${plural(read.reads, "read")} (largest ${formatTokens(read.largest)})`,
    ],
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
    ...(real !== undefined
      ? [
          [
            "Real time",
            `${formatDuration(real.ms)}, of which ${formatDuration(real.storeMs)} waiting on the store (not part of the outcome)`,
          ] as [string, string],
        ]
      : []),
    [
      "Brain",
      summary.reproducible === false
        ? `${summary.brain} — a model: this run is not reproducible (thinking time is the model's real latency)`
        : summary.brain,
    ],
    ["Timeline", formatCommandHint(["timeline", summary.runId], storeFlags)],
  ];
  const width = Math.max(...rows.map(([label]) => label.length)) + 1;
  return [
    `Summary — ${modeDescriptions[summary.mode]}, scenario ${summary.scenario}, run ${summary.runId}`,
    ...rows.map(([label, value]) => `  ${`${label}:`.padEnd(width + 1)} ${value}`),
  ];
}

/** Writes the summary block. */
export function writeRunSummary(
  stream: OutputStream,
  summary: RunSummary,
  real?: RealTime,
  storeFlags: StoreFlags = {},
): void {
  stream.write(`\n${formatRunSummary(summary, real, storeFlags).join("\n")}\n`);
}

/** The `--json` document: the summary's fields, every event, and the real time apart. */
export interface RunJsonDocument extends RunSummary {
  readonly events: readonly ScenarioEvent[];
  /** Real milliseconds (machine-dependent, never part of the outcome). */
  readonly real?: RealTime;
}

/** Writes the `--json` document (one JSON value, pretty-printed, then a new line). */
export function writeRunJson(
  stream: OutputStream,
  summary: RunSummary,
  events: readonly ScenarioEvent[],
  real?: RealTime,
  /** More top-level fields (`run --task`: what the rules understood, the team). @default none */
  extra: Readonly<Record<string, unknown>> = {},
): void {
  const document: RunJsonDocument = { ...summary, ...extra, events, ...(real ? { real } : {}) };
  stream.write(`${JSON.stringify(document, null, 2)}\n`);
}
