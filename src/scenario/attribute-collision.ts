import type { CollisionCause, ScenarioEvent } from "./scenario-events.js";

type EventOf<Type extends ScenarioEvent["type"]> = Extract<ScenarioEvent, { type: Type }>;

/** What the Reviewer found, before its cause is attributed. */
export interface CollisionFacts {
  module: string;
  /** The decider first (when a decision was contradicted), then the builders. */
  agents: readonly string[];
  /** A module built more than once (no decision involved). */
  duplicate: boolean;
  /**
   * The index in `events` of the decision that retired the module (the referee knows which one
   * stands at the end). @default the first deprecation of the module
   */
  decisionPosition?: number;
}

/**
 * Why a collision happened, from the run's events alone: the mechanism that would have prevented
 * it and that the mode lacked.
 * - built twice: `atomic claim` (two agents took the module without seeing each other);
 * - the deprecation came after the build ended: `decided after the work` (nothing could help);
 * - it came after the builder last read (while it thought or built): `mid-build invalidation`;
 * - it came before the builder joined the run: `history for a late joiner`;
 * - otherwise it was there to be read before acting: `read-before-act`.
 */
export function collisionCauseOf(
  events: readonly ScenarioEvent[],
  facts: CollisionFacts,
): CollisionCause {
  if (facts.duplicate) return "atomic claim";
  const given = facts.decisionPosition === undefined ? undefined : events[facts.decisionPosition];
  const decision =
    given?.type === "decision-write"
      ? given
      : events.find(
          (event): event is EventOf<"decision-write"> =>
            event.type === "decision-write" &&
            event.target === facts.module &&
            event.value === "deprecate",
        );
  if (decision === undefined) return "read-before-act";
  const builderIds = new Set(facts.agents.filter((agentId) => agentId !== decision.agentId));
  const build = events.find(
    (event): event is EventOf<"module-end"> =>
      event.type === "module-end" && event.module === facts.module && builderIds.has(event.agentId),
  );
  if (build === undefined) return "read-before-act";
  const start = events.find(
    (event): event is EventOf<"module-start"> =>
      event.type === "module-start" &&
      event.module === facts.module &&
      event.agentId === build.agentId &&
      event.at <= build.at,
  );
  const joined = events.find(
    (event) => event.type === "agent-start" && event.agentId === build.agentId,
  );
  const lastRead = events
    .filter(
      (event): event is EventOf<"context-read"> =>
        event.type === "context-read" &&
        event.agentId === build.agentId &&
        event.at <= (start?.at ?? build.at),
    )
    .at(-1);
  if (decision.at >= build.at) return "decided after the work";
  if (lastRead !== undefined && decision.at > lastRead.at) return "mid-build invalidation";
  if (joined !== undefined && decision.at < joined.at) return "history for a late joiner";
  return "read-before-act";
}
