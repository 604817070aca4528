import type { RunSummary, ScenarioEvent } from "../scenario/scenario-events.js";

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
  readonly naive: RunEventSource;
  readonly statewave: RunEventSource;
  /** Aborts whatever is still running and waits for it to settle. Idempotent. */
  stop(): Promise<void>;
}

/** Starts both pipelines on a scenario (by name). */
export type StartDemoRuns = (scenario: string) => Promise<DemoRuns>;
