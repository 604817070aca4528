/**
 * A promotion as JSON: the `--json` document of `shared-ctx promote` and the structured result of
 * the `promote_decisions` MCP tool. Pure.
 */
import type { PromotionResult } from "./apply-promotion.js";
import type { PromotionCandidate, PromotionItem, PromotionPlan } from "./plan-promotion.js";

function targetOf(candidate: PromotionCandidate): string | undefined {
  const target = candidate.memory.metadata.target;
  return typeof target === "string" ? target : undefined;
}

function candidateDocument(candidate: PromotionCandidate) {
  const target = targetOf(candidate);
  return {
    memoryId: candidate.memory.id,
    content: candidate.memory.content,
    ...(target !== undefined ? { target } : {}),
    author: candidate.author,
    authority: candidate.authority,
    status: candidate.memory.status,
  };
}

function itemDocument(item: PromotionItem) {
  const base = { id: item.id, status: item.status, decision: candidateDocument(item.decision) };
  switch (item.status) {
    case "new":
      return base;
    case "supersedes":
      return { ...base, supersedes: item.supersedes.map(candidateDocument) };
    case "conflict":
      return {
        ...base,
        conflictsWith: item.against.map((side) => ({
          ...candidateDocument(side.decision),
          unread: side.unread,
          outranks: side.outranks,
        })),
      };
    case "unchanged":
      return { ...base, promoted: candidateDocument(item.promoted) };
    case "rejected":
      return { ...base, rejection: { ...item.rejection } };
  }
}

/** The plan's items, each with its outcome when it was applied (`result` undefined: a dry run). */
export function promotionDocument(plan: PromotionPlan, result?: PromotionResult) {
  const outcomes = new Map(result?.items.map((applied) => [applied.item.id, applied]));
  return {
    runSubjectId: plan.runSubjectId,
    projectSubjectId: plan.projectSubjectId,
    dryRun: result === undefined,
    items: plan.items.map((item) => {
      const applied = outcomes.get(item.id);
      return {
        ...itemDocument(item),
        ...(applied ? { outcome: applied.outcome } : {}),
        ...(applied?.outcome === "promoted"
          ? {
              promotedEpisodeId: applied.episode.id,
              promotedMemoryIds: applied.memories.map((memory) => memory.id),
            }
          : {}),
      };
    }),
    verdicts: (result?.verdicts ?? []).map((episode) => ({
      episodeId: episode.id,
      by: episode.source,
      at: episode.createdAt,
      verdict: episode.payload.verdict ?? null,
      memoryId: episode.payload.memoryId ?? null,
    })),
    held: (result?.held ?? []).map((item) => item.id),
  };
}
