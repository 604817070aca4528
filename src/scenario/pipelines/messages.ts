import type { BuildResult, KnownDecision, KnownDispute } from "../../agents/brain.js";
import { isAuthority } from "../../context/authority.js";
import type { BusMessage } from "../../context/message-bus.js";
import type { Coordination } from "../../coordination/coordination.js";
import type { PlannedDecision } from "../../coordination/scenario-schema.js";
import { estimateTokens } from "./read-tokens.js";

/**
 * What the message modes' messages carry, both ways (a decision, a claim, a result into a message
 * and back out of one), and what an inbox holds: shared by the message pipeline (`naive`,
 * `broadcast`) and the group chat.
 */

/** A decision as carried by a message, with what its author had seen when deciding. */
export interface DecisionMessage extends KnownDecision {
  id: string;
  /** Decisions on the same target its author had read: the new one overrules them. */
  supersedes: string[];
}

/**
 * A decision message's data: its id, target, value, when it was published (scenario ms) and the
 * ids it overrules. The group chat adds the decision's authority (see `authorityData`).
 */
export function decisionData(
  id: string,
  decision: PlannedDecision,
  at: number,
  overrules: readonly string[],
): Record<string, string | number> {
  return {
    id,
    target: decision.target,
    value: decision.value,
    at,
    supersedes: overrules.join(","),
    ...(decision.by !== undefined ? { replacement: decision.by } : {}),
  };
}

/** The decision a message carries, if it carries one. */
export function decisionOf(message: BusMessage): DecisionMessage | undefined {
  const { target, value, id, supersedes, at, replacement, authority } = message.data;
  if (message.topic !== "decision" || typeof target !== "string" || typeof value !== "string") {
    return undefined;
  }
  return {
    id: String(id),
    target,
    value,
    by: message.from,
    content: message.content,
    at: Number(at),
    supersedes: typeof supersedes === "string" && supersedes !== "" ? supersedes.split(",") : [],
    ...(typeof replacement === "string" ? { replacement } : {}),
    // Said in the message ("a person decided"), so a chat honours it too (group-chat does).
    ...(isAuthority(authority) ? { authority } : {}),
  };
}

/** A result message's data: the module built and what building it cost. */
export function resultData(result: BuildResult): Record<string, string | number> {
  return { module: result.module, tokens: result.tokens, ms: result.ms };
}

/** The build a message reports, if it reports one. */
export function resultOf(message: BusMessage): BuildResult | undefined {
  const { module, tokens, ms } = message.data;
  if (message.topic !== "result" || typeof module !== "string") return undefined;
  return { module, agentId: message.from, tokens: Number(tokens), ms: Number(ms) };
}

/** Who claimed each module first, by the claim messages among `messages` (in their order). */
export function firstClaims(messages: readonly BusMessage[]): Record<string, string> {
  const claims: Record<string, string> = {};
  for (const message of messages) {
    const module = message.data.module;
    if (message.topic === "claim" && typeof module === "string" && !Object.hasOwn(claims, module)) {
      claims[module] = message.from;
    }
  }
  return claims;
}

/** One of each decision (a transcript replayed or a message read twice is one decision). */
export function uniqueById(decisions: readonly DecisionMessage[]): DecisionMessage[] {
  const byId = new Map<string, DecisionMessage>();
  for (const decision of decisions) byId.set(decision.id, decision);
  return [...byId.values()];
}

/** The decisions `messages` carry, one of each. */
export function decisionsIn(messages: readonly BusMessage[]): DecisionMessage[] {
  return uniqueById(
    messages
      .map(decisionOf)
      .filter((decision): decision is DecisionMessage => decision !== undefined),
  );
}

/** The decisions nobody overruled: a later decision overrules only those its author had read. */
export function activeDecisions(decisions: readonly DecisionMessage[]): KnownDecision[] {
  const overruled = new Set(decisions.flatMap((decision) => decision.supersedes));
  return uniqueById(decisions)
    .filter((decision) => !overruled.has(decision.id))
    .map(({ supersedes: _supersedes, ...decision }) => decision);
}

/**
 * Active decisions that disagree: one target, several agents, different values, none of them
 * aware of the other. Nobody in a message-passing team settles them, so they stay open.
 */
export function disagreementsIn(decisions: readonly KnownDecision[]): KnownDispute[] {
  const byTarget = new Map<string, Map<string, string>>();
  for (const decision of decisions) {
    const byAgent = byTarget.get(decision.target) ?? new Map<string, string>();
    byAgent.set(decision.by, decision.value);
    byTarget.set(decision.target, byAgent);
  }
  const disputes: KnownDispute[] = [];
  for (const [target, byAgent] of byTarget) {
    if (new Set(byAgent.values()).size < 2) continue;
    disputes.push({
      target,
      contenders: [...byAgent].map(([agentId, value]) => ({ agentId, value })),
    });
  }
  return disputes;
}

/** What an agent reads when it reads `messages`: every one of them, author and words. */
export function messagesTokens(messages: readonly BusMessage[]): number {
  return estimateTokens(
    messages.map((message) => `${message.from}: ${message.content}`).join("\n"),
  );
}

/**
 * The Reviewer's view from its inbox: the decisions nobody overruled, every build reported, and
 * the disagreements among those decisions (nobody settles them in a message mode).
 */
export function reviewOfInbox(
  inbox: readonly BusMessage[],
): Awaited<ReturnType<Coordination["collectForReview"]>> {
  const decisions = activeDecisions(decisionsIn(inbox));
  return {
    decisions,
    results: inbox.map(resultOf).filter((item): item is BuildResult => item !== undefined),
    disputes: disagreementsIn(decisions),
  };
}

/** Nobody arbitrates in a message mode (nothing is ever escalated): the lead waits for the end. */
export const nobodyArbitrates: Coordination["arbitrate"] = async (_agentId, _choose, until) => {
  await until;
};
