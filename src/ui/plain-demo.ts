import { nothingToCoordinate, sameWork } from "../scenario/from-task/what-modes-face.js";
import type { RunSummary, ScenarioEvent } from "../scenario/scenario-events.js";
import { formatCommandHint, type StoreFlags } from "./format/command-hint.js";
import {
  formatComparisonPlain,
  formatEventLinePlain,
  formatRunHeader,
  formatVerdictPlain,
} from "./format/plain-run.js";
import { verdictFor } from "./format/verdict.js";
import type { DemoRuns, RunEventSource } from "./run-source.js";

/** Where plain output goes (stdout, or a buffer in tests). */
export interface PlainOutput {
  write(chunk: string): unknown;
}

/** Collects a run's events from the start, so nothing is lost while the other run is printed. */
function record(source: RunEventSource): { events: ScenarioEvent[]; stop: () => void } {
  const events: ScenarioEvent[] = [];
  const stop = source.subscribe((event) => events.push(event));
  return { events, stop };
}

function writeLines(output: PlainOutput, lines: readonly string[]): void {
  output.write(`${lines.join("\n")}\n`);
}

async function printRun(
  output: PlainOutput,
  source: RunEventSource,
  events: ScenarioEvent[],
): Promise<RunSummary> {
  // Print what has happened so far, then follow live until the end.
  let printed = 0;
  const flush = () => {
    for (; printed < events.length; printed++) {
      const event = events[printed] as ScenarioEvent;
      if (event.type === "run-start") writeLines(output, [formatRunHeader(events)]);
      else if (event.type !== "run-end") writeLines(output, [formatEventLinePlain(event, events)]);
    }
  };
  flush();
  const stop = source.subscribe(() => flush());
  try {
    const summary = await source.done;
    flush();
    writeLines(output, [...formatVerdictPlain(verdictFor(summary, events)), ""]);
    return summary;
  } catch (error) {
    // Print what the run did before it failed; the error itself (typed, e.g. a server that is
    // down) goes up unchanged so the CLI can report it with its own message and exit code.
    flush();
    throw error;
  } finally {
    stop();
  }
}

/**
 * The demo without a terminal (a pipe, CI): both pipelines run at the same time, and their lines
 * are printed one run after the other (naive live, shared context once naive is done), each with
 * its verdict, then the comparison.
 */
export async function printDemoPlain(
  runs: DemoRuns,
  output: PlainOutput,
  options: {
    width?: number;
    /** The store flags the demo ran with, repeated in the timeline hint. */
    storeFlags?: StoreFlags;
  } = {},
): Promise<{ naive: RunSummary; statewave: RunSummary }> {
  const naive = record(runs.naive);
  const statewave = record(runs.statewave);
  try {
    const naiveSummary = await printRun(output, runs.naive, naive.events);
    const statewaveSummary = await printRun(output, runs.statewave, statewave.events);
    // Judged from what the agents did, not from the verdicts: the same work on both sides, with
    // nothing skipped or cut short on either, is a task where coordination had nothing to change.
    // (When both sides coordinated alike, the comparison below says the tie and by what.)
    const coordinated = (events: readonly ScenarioEvent[]) =>
      events.some((event) => event.type === "module-skip" || event.type === "module-cancel");
    if (
      sameWork(naive.events, statewave.events) &&
      !coordinated(naive.events) &&
      !coordinated(statewave.events)
    ) {
      writeLines(output, [
        `${nothingToCoordinate}: both sides built, skipped and cancelled the same modules. A tie.`,
        "",
      ]);
    }
    writeLines(output, [
      ...formatComparisonPlain(naiveSummary, statewaveSummary, options.width),
      "",
      `Timeline of the shared-context run: ${formatCommandHint(["timeline", statewaveSummary.runId], options.storeFlags)}`,
    ]);
    return { naive: naiveSummary, statewave: statewaveSummary };
  } finally {
    naive.stop();
    statewave.stop();
  }
}
