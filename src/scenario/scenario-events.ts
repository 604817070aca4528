/**
 * The run's event stream lives in `src/coordination/run-events.ts`, where both the agents (which
 * emit it) and the runner can see it; this module keeps the path the UI and the CLI import from.
 */
export * from "../coordination/run-events.js";
