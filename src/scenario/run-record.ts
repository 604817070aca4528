import type { CreateEpisodeInput, Episode, JsonObject } from "../context/context-store.js";
import type { RunMode, ScenarioEvent } from "./scenario-events.js";

/**
 * How a run is kept in the store: the run id is the subject, and every scenario event is one
 * episode of type `run_event` (the event itself in `payload.event`), next to the episodes the
 * shared-context pipeline writes for its own coordination (decisions, `state_update`, …).
 * `shared-ctx timeline` and `shared-ctx runs` read runs back through these two functions only.
 */
export const runEventEpisodeType = "run_event";

/** Run ids are `nv-xxxxxxxx` (naive) and `sw-xxxxxxxx` (statewave). */
export const runIdPrefix: Record<RunMode, string> = { naive: "nv-", statewave: "sw-" };

/** True for a subject id that names a run. */
export function isRunId(subjectId: string): boolean {
  return /^(nv|sw)-[0-9a-z]{8}$/.test(subjectId);
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
