import type { KnownState } from "../coordination/coordination.js";
import type { Mechanism } from "../coordination/run-events.js";
import type { ModuleStepChoice } from "./brain.js";

/**
 * The mechanism behind a Coder's decision to skip a module, judged from the facts it read (not
 * from the brain's words, so a model's phrasing cannot change the attribution): an open dispute on
 * the module, a deprecation (made before the Coder joined: history; after: read-before-act), or
 * someone else's claim it read. Null when the skip avoided nothing (no one caused it).
 */
export function mechanismOfSkip(
  known: KnownState,
  module: string,
  choice: Extract<ModuleStepChoice, { action: "skip" }>,
  joinedAt: number,
): Mechanism | null {
  if (choice.causedBy === null) return null;
  if (known.disputes.some((dispute) => dispute.target === module)) return "dispute surfaced";
  const deprecation = known.decisions.find(
    (decision) => decision.target === module && decision.value === "deprecate",
  );
  if (deprecation !== undefined && (deprecation.at ?? joinedAt) < joinedAt) {
    return "history for a late joiner";
  }
  return "read-before-act";
}
