import type { UnstampedEvent } from "../../agents/agent-runtime.js";
import type { KnownDecision, KnownDispute } from "../../agents/brain.js";

/**
 * How a read is told on the timeline (`context-read`), in the same lines in every mode, so the
 * modes' reads compare: one line per decision (who said what), its id, one line per open dispute.
 */

/** One line per decision a read delivered: `<by>: <content>`. */
export function decisionLines(decisions: readonly KnownDecision[]): string[] {
  return decisions.map((decision) => `${decision.by}: ${decision.content}`);
}

/** Their ids in the run (`decision-write`'s `decisionId`): what the referee says was read. */
export function decisionIdsOf(decisions: readonly KnownDecision[]): string[] {
  return decisions.flatMap((decision) => (decision.id === undefined ? [] : [decision.id]));
}

/** One line per open dispute: `<target>: <agent> says <value> vs …`. */
export function disputeLines(disputes: readonly KnownDispute[]): string[] {
  return disputes.map(
    (dispute) =>
      `${dispute.target}: ${dispute.contenders.map((contender) => `${contender.agentId} says ${contender.value}`).join(" vs ")}`,
  );
}

/** What a read of an inbox (the message modes) delivered. */
export interface InboxRead {
  agentId: string;
  task: string;
  decisions: readonly KnownDecision[];
  disputes: readonly KnownDispute[];
  tokens: number;
  /** The decisions in the inbox the read did not take (filtered reading). @default not said */
  decisionsLeftOut?: number;
  /** A message pushed into running work by a listener, not a read of the inbox. @default inbox */
  source?: "inbox" | "interrupt";
}

/** The `context-read` event of a read of an inbox: no memories, its source the inbox. */
export function inboxReadEvent(read: InboxRead): UnstampedEvent {
  return {
    type: "context-read",
    agentId: read.agentId,
    task: read.task,
    memoryIds: [],
    decisions: decisionLines(read.decisions),
    decisionIds: decisionIdsOf(read.decisions),
    disputes: disputeLines(read.disputes),
    tokens: read.tokens,
    ...(read.decisionsLeftOut !== undefined ? { decisionsLeftOut: read.decisionsLeftOut } : {}),
    source: read.source ?? "inbox",
  };
}
