import type {
  CollisionCause,
  Mechanism,
  RunMode,
  RunSummary,
} from "../../scenario/scenario-events.js";
import { mechanisms } from "../../scenario/scenario-events.js";
import { formatTokens, plural } from "./duration.js";

/** What each mode is, in one phrase, for summaries and verdicts. */
export const modeDescriptions: Record<RunMode, string> = {
  naive: "naive (isolated: agents see only their own brief)",
  broadcast: "broadcast (plain message passing: every message to every agent, nothing more)",
  "group-chat":
    "group-chat (the strongest message passing: messages routed by topic, interrupts, transcript for joiners, first-come claims, filtered reading)",
  statewave: "statewave (shared context)",
};

/**
 * "1 by mid-build invalidation, 2 by atomic claim", in the order mechanisms are listed; "" for
 * none. Each count says what it counts: a bare "mid-build invalidation 1" read as a label.
 */
export function formatAvoidedBy(avoidedBy: RunSummary["avoidedBy"]): string {
  return mechanisms
    .filter((mechanism) => (avoidedBy[mechanism] ?? 0) > 0)
    .map((mechanism) => `${avoidedBy[mechanism]} by ${mechanism}`)
    .join(", ");
}

/**
 * A run's cost under the one rule: "1,234 tokens delivered · 12 messages · 59 store requests";
 * "not measured" for a run recorded before the rule.
 */
export function formatCost(cost: RunSummary["cost"]): string {
  if (cost === undefined) return "not measured (recorded before the cost rule)";
  return [
    `${formatTokens(cost.deliveredTokens)} tokens delivered`,
    plural(cost.messagesDelivered, "message"),
    plural(cost.storeRequests, "store request"),
  ].join(" · ");
}

/** Why a collision happened, as a reader wants it. */
export function describeCollisionCause(cause: CollisionCause): string {
  switch (cause) {
    case "decided after the work":
      return "the decision came after the work was done (no mechanism could help)";
    case "read-before-act":
      return "nothing to read before acting (read-before-act)";
    case "mid-build invalidation":
      return "the decision landed after the agent last looked; nobody told it (mid-build invalidation)";
    case "atomic claim":
      return "two agents took the same module (atomic claim)";
    case "dispute surfaced":
      return "a disagreement nobody saw (dispute surfaced)";
    case "history for a late joiner":
      return "decided before the agent joined; it never heard (history for a late joiner)";
    default:
      return cause satisfies never;
  }
}

/**
 * A run's outcome in a few words, from the referee's verdict: "collision", "unresolved (1 open
 * dispute)", "2 conflicts avoided", "no conflict". An open dispute is never reported as a win.
 */
export function outcomeWords(summary: RunSummary): string {
  if (summary.collision) return "collision";
  const open = summary.referee?.openDisputes.length ?? summary.openDisputes ?? 0;
  if (open > 0) return `unresolved (${open} open ${open === 1 ? "dispute" : "disputes"})`;
  if (summary.conflictsAvoided > 0) {
    return `${summary.conflictsAvoided} ${summary.conflictsAvoided === 1 ? "conflict" : "conflicts"} avoided`;
  }
  return "no conflict";
}

/** The mechanisms in a summary, for one-line mentions ("mid-build invalidation"). */
export function mechanismsOf(summary: RunSummary): Mechanism[] {
  return mechanisms.filter((mechanism) => (summary.avoidedBy?.[mechanism] ?? 0) > 0);
}
