import type { RunSummary, ScenarioEvent } from "../scenario/scenario-events.js";
import type { ScenarioFocus } from "./format/caption.js";

/**
 * What the UI needs from a running pipeline. The runner's `RunHandle` has exactly this shape; the
 * UI depends on the shape only, so tests drive it with fixture event streams.
 */
export interface RunEventSource {
  readonly runId: string;
  /** Replays the events so far, then delivers new ones; returns the unsubscribe function. */
  subscribe(listener: (event: ScenarioEvent) => void): () => void;
  readonly done: Promise<RunSummary>;
}

/** Both pipelines of one demo round, started at the same moment. */
export interface DemoRuns {
  /** The baseline, drawn on the left: message passing (whatever its mode: naive, broadcast). */
  readonly naive: RunEventSource;
  /** The shared-context pipeline, drawn on the right. */
  readonly statewave: RunEventSource;
  /** What the caption tells the viewer to watch (`scenarioFocus`), when the scenario has it. */
  readonly focus?: ScenarioFocus;
  /** Aborts whatever is still running and waits for it to settle. Idempotent. */
  stop(): Promise<void>;
}

/** Starts both pipelines on a scenario (by name). */
export type StartDemoRuns = (scenario: string) => Promise<DemoRuns>;
