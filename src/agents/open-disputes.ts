import type { KnownDecision, OpenDispute, ReviewInput } from "./brain.js";

/**
 * What a contender decided, in the words of the decisions: a register may report a module's fate
 * as `deprecated-by:<agent>` or a claim, the decisions say `deprecate`; a reader wants the latter.
 */
function decidedValue(
  decisions: readonly KnownDecision[],
  target: string,
  agentId: string,
  reported: string,
): string {
  const own = decisions.filter((decision) => decision.target === target && decision.by === agentId);
  return own.at(-1)?.value ?? reported;
}

/**
 * The disputes still open at the review, one per target, each side named with what it decided.
 * These are facts the coordination layer reported (not judgement), so every brain reports them
 * the same way, whatever it thinks of the builds.
 */
export function openDisputesOf(input: ReviewInput): OpenDispute[] {
  const byTarget = new Map<string, OpenDispute>();
  for (const dispute of input.disputes ?? []) {
    const open = byTarget.get(dispute.target) ?? { target: dispute.target, contenders: [] };
    for (const contender of dispute.contenders) {
      if (open.contenders.some((known) => known.agentId === contender.agentId)) continue;
      open.contenders.push({
        agentId: contender.agentId,
        value: decidedValue(input.decisions, dispute.target, contender.agentId, contender.value),
      });
    }
    byTarget.set(dispute.target, open);
  }
  // A "dispute" with one side left is not one (e.g. the same agent reported twice).
  return [...byTarget.values()].filter((dispute) => dispute.contenders.length > 1);
}
