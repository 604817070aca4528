import type { CreateEpisodeInput, Episode, JsonObject } from "../context/context-store.js";
import type { RunMode, ScenarioEvent } from "./scenario-events.js";

/**
 * How a run is kept in the store: the run id is the subject, and every scenario event is one
 * episode of type `run_event` (the event itself in `payload.event`), next to the episodes the
 * shared-context pipeline writes for its own coordination (decisions, `state_update`, …).
 * `shared-ctx timeline` and `shared-ctx runs` read runs back through these two functions only.
 */
export const runEventEpisodeType = "run_event";

/**
 * Run ids are `nv-xxxxxxxx` (naive), `bc-xxxxxxxx` (broadcast), `gc-xxxxxxxx` (group-chat) and
 * `sw-xxxxxxxx` (statewave).
 */
export const runIdPrefix: Record<RunMode, string> = {
  naive: "nv-",
  broadcast: "bc-",
  "group-chat": "gc-",
  statewave: "sw-",
};

/** True for a subject id that names a run. */
export function isRunId(subjectId: string): boolean {
  return /^(nv|bc|gc|sw)-[0-9a-z]{8}$/.test(subjectId);
}

/** The episode that records one scenario event. */
export function toRunEventEpisode(event: ScenarioEvent): CreateEpisodeInput {
  const source = "agentId" in event ? event.agentId : "from" in event ? event.from : "runner";
  return {
    subjectId: event.runId,
    source,
    type: runEventEpisodeType,
    // Events are plain JSON by construction (strings, numbers, arrays, objects).
    payload: { event: event as unknown as JsonObject },
  };
}

/** The scenario event an episode records, or undefined for any other episode. */
export function fromRunEventEpisode(episode: Episode): ScenarioEvent | undefined {
  if (episode.type !== runEventEpisodeType) return undefined;
  const event = episode.payload.event;
  if (typeof event !== "object" || event === null || Array.isArray(event)) return undefined;
  if (typeof event.type !== "string" || typeof event.runId !== "string") return undefined;
  return event as unknown as ScenarioEvent;
}

/**
 * How a run that never reached `run-end` stopped: `interrupted` (Ctrl-C, SIGTERM, the reader of
 * its output gone, the demo moving on) or `failed` (an agent, the model or the store failed).
 */
export type RunStopState = "interrupted" | "failed";

/** The episode type of a run's stop record: written once, after the run's last event. */
export const runStopEpisodeType = "run_stop";

/** A run's stop record, as `shared-ctx runs` shows it. */
export interface RunStop {
  readonly runId: string;
  readonly state: RunStopState;
  /** Why, in one line: "interrupted by SIGINT", "cannot reach the model server at …". */
  readonly reason: string;
  /** Milliseconds since the run started (scenario time, like an event's `at`). */
  readonly at: number;
}

/** The episode that records how a run stopped. */
export function toRunStopEpisode(stop: RunStop): CreateEpisodeInput {
  return {
    subjectId: stop.runId,
    source: "runner",
    type: runStopEpisodeType,
    payload: { state: stop.state, reason: stop.reason, at: stop.at },
  };
}

/** The stop record an episode holds, or undefined for any other episode. */
export function fromRunStopEpisode(episode: Episode): RunStop | undefined {
  if (episode.type !== runStopEpisodeType) return undefined;
  const { state, reason, at } = episode.payload;
  if (state !== "interrupted" && state !== "failed") return undefined;
  return {
    runId: episode.subjectId,
    state,
    reason: typeof reason === "string" ? reason : "",
    at: typeof at === "number" ? at : 0,
  };
}
