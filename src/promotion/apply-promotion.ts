/**
 * Writing a promotion plan into the project subject: the items that need no review at once, the
 * conflicting ones only when a reviewer approved them, and every verdict as an attributed episode.
 * Each write carries an idempotency key, so applying the same plan twice stores nothing new.
 */
import { type Authority, authorityKey, compareAuthority } from "../context/authority.js";
import { readMemoryIdsKey } from "../context/compile-memories.js";
import type {
  ContextStore,
  CreateEpisodeInput,
  Episode,
  JsonObject,
  Memory,
} from "../context/context-store.js";
import { listAllMemories } from "../context/memory-query.js";
import { listOnTargets } from "../context/reads-by-target.js";
import { PromotionInputError } from "./errors/promotion-input-error.js";
import type { PromotionCandidate, PromotionItem, PromotionPlan } from "./plan-promotion.js";
import {
  type PromotionSource,
  promotedFromKey,
  promotionIdempotencyKey,
  promotionKey,
  promotionReviewType,
  promotionSourceJson,
} from "./promotion-records.js";

/** A reviewer's answers to a plan. */
export interface PromotionReview {
  /** Item ids (run memory ids) to promote even though they conflict, or were rejected before. */
  approve?: readonly string[];
  /** Item ids to keep out of the project (any item not yet promoted). */
  reject?: readonly string[];
  /** Who reviews: each verdict is attributed to them. */
  approver: string;
  /**
   * The reviewer's authority. An approved decision enters the project with the higher of its own
   * and this one: the reviewer, not the run's agent, now stands behind it.
   * @default "user" (a person reviews)
   */
  approverAuthority?: Authority;
}

/** What one item came to (`unchanged` also for an item rejected before and not approved now). */
export type AppliedItem =
  | { item: PromotionItem; outcome: "promoted"; episode: Episode; memories: Memory[] }
  | { item: PromotionItem; outcome: "rejected"; verdict: Episode }
  | { item: PromotionItem; outcome: "held" }
  | { item: PromotionItem; outcome: "unchanged" };

/** What {@link applyPromotion} wrote. */
export interface PromotionResult {
  plan: PromotionPlan;
  /** One per plan item, in the plan's order. */
  items: AppliedItem[];
  /** The approval and rejection episodes written now, in order. */
  verdicts: Episode[];
  /** Conflicting items left out for want of an approval. */
  held: PromotionItem[];
}

/** How many item ids an error names: a plan may hold hundreds. */
const namedItems = 5;

/** The first few ids, and how many more there are. */
function someOf(ids: readonly string[]): string {
  if (ids.length === 0) return "none";
  const more = ids.length - namedItems;
  return more > 0 ? `${ids.slice(0, namedItems).join(", ")} … and ${more} more` : ids.join(", ");
}

/** Refuses ids that are not items, and an id both approved and rejected. */
function checkReview(plan: PromotionPlan, review: PromotionReview): void {
  const ids = new Set(plan.items.map((item) => item.id));
  for (const field of ["approve", "reject"] as const) {
    const unknown = (review[field] ?? []).filter((id) => !ids.has(id));
    if (unknown.length > 0) {
      throw new PromotionInputError(
        field,
        `--${field} ${unknown.join(", ")}: not an item of this promotion of ${plan.runSubjectId}; its items: ${someOf([...ids])}`,
        { ids: unknown },
      );
    }
  }
  const rejected = new Set(review.reject ?? []);
  const both = (review.approve ?? []).filter((id) => rejected.has(id));
  if (both.length > 0) {
    throw new PromotionInputError(
      "approve",
      `${both.join(", ")} both approved and rejected: give each item one verdict`,
      { ids: both },
    );
  }
}

/** The target a decision names, if any. */
function targetOf(candidate: PromotionCandidate): string | undefined {
  const target = candidate.memory.metadata.target;
  return typeof target === "string" ? target : undefined;
}

function verdictInput(
  plan: PromotionPlan,
  item: PromotionItem,
  verdict: "approved" | "rejected",
  review: PromotionReview,
): CreateEpisodeInput {
  const target = targetOf(item.decision);
  return {
    subjectId: plan.projectSubjectId,
    source: review.approver,
    type: promotionReviewType,
    // No content/text/summary: compile makes no memory of a verdict.
    payload: {
      verdict,
      runSubjectId: plan.runSubjectId,
      memoryId: item.id,
      status: item.status,
      ...(target !== undefined ? { target } : {}),
    },
    metadata: { [authorityKey]: review.approverAuthority ?? "user" },
    idempotencyKey: promotionIdempotencyKey(`promote-${verdict}`, plan.runSubjectId, item.id),
  };
}

/** The project decisions a promoted one must supersede there (its readMemoryIds say it knew them). */
function overruled(item: PromotionItem): PromotionCandidate[] {
  if (item.status === "supersedes") return item.supersedes;
  if (item.status === "conflict") return item.projectDecisions;
  return [];
}

function decisionInput(
  plan: PromotionPlan,
  item: PromotionItem,
  approvedBy: PromotionReview | undefined,
): CreateEpisodeInput {
  const { memory, author } = item.decision;
  const source: PromotionSource = {
    subjectId: plan.runSubjectId,
    memoryId: memory.id,
    episodeIds: [...memory.sourceEpisodeIds],
    author,
    authority: item.decision.authority,
  };
  const reviewer = approvedBy?.approverAuthority ?? "user";
  const authority =
    approvedBy !== undefined && compareAuthority(reviewer, item.decision.authority) > 0
      ? reviewer
      : item.decision.authority;
  const target = targetOf(item.decision);
  const promotion: JsonObject = {
    ...promotionSourceJson(source),
    ...(approvedBy ? { approvedBy: approvedBy.approver } : {}),
  };
  return {
    subjectId: plan.projectSubjectId,
    // The author stays the author: the project's readers see who decided, not who promoted.
    source: author,
    type: memory.kind,
    payload: {
      content: memory.content,
      confidence: memory.confidence,
      ...(target !== undefined ? { target } : {}),
    },
    metadata: { [authorityKey]: authority, [promotionKey]: promotion },
    provenance: {
      [readMemoryIdsKey]: overruled(item).map((candidate) => candidate.memory.id),
      [promotedFromKey]: promotionSourceJson(source),
    },
    idempotencyKey: promotionIdempotencyKey("promote", plan.runSubjectId, memory.id),
  };
}

/**
 * Applies a plan to its project subject: `new` and `supersedes` items at once (unless rejected),
 * `conflict` items (and earlier rejections) only when approved, each approval and rejection first
 * recorded as a `promotion_review` episode by the approver. Then compiles the project once.
 *
 * A promoted decision keeps its author (the episode's source), its run, memory and source episodes
 * (`metadata.promotion`, `provenance.promoted_from`), and lists the project decisions it overrules
 * in `provenance.read_memory_ids`, so that the store's compile lets it supersede them.
 *
 * @throws PromotionInputError for an approval or rejection of an id that is not an item
 */
export async function applyPromotion(
  store: ContextStore,
  plan: PromotionPlan,
  review: PromotionReview,
  options: { signal?: AbortSignal } = {},
): Promise<PromotionResult> {
  checkReview(plan, review);
  const approved = new Set(review.approve ?? []);
  const rejected = new Set(review.reject ?? []);
  const signal = options.signal ? { signal: options.signal } : {};
  const verdicts: Episode[] = [];
  const written: Array<{ item: PromotionItem; episode: Episode }> = [];
  const outcomes = new Map<string, AppliedItem>();
  for (const item of plan.items) {
    if (item.status === "unchanged") {
      outcomes.set(item.id, { item, outcome: "unchanged" });
      continue;
    }
    if (rejected.has(item.id)) {
      const verdict = await store.createEpisode(
        verdictInput(plan, item, "rejected", review),
        signal,
      );
      verdicts.push(verdict);
      outcomes.set(item.id, { item, outcome: "rejected", verdict });
      continue;
    }
    if (item.status === "rejected" && !approved.has(item.id)) {
      // Rejected before and not reopened: it stays out, and nothing waits for a reviewer.
      outcomes.set(item.id, { item, outcome: "unchanged" });
      continue;
    }
    if (item.status === "conflict" && !approved.has(item.id)) {
      outcomes.set(item.id, { item, outcome: "held" });
      continue;
    }
    if (approved.has(item.id)) {
      verdicts.push(
        await store.createEpisode(verdictInput(plan, item, "approved", review), signal),
      );
    }
    const episode = await store.createEpisode(
      decisionInput(plan, item, approved.has(item.id) ? review : undefined),
      signal,
    );
    written.push({ item, episode });
  }
  if (written.length > 0) {
    const compiled = await store.compileMemories(plan.projectSubjectId, signal);
    let memories = compiled.memories;
    // An episode an idempotency key returned was compiled before: its memory is among the active.
    const compiledIds = new Set(memories.flatMap((memory) => memory.sourceEpisodeIds));
    if (written.some(({ episode }) => !compiledIds.has(episode.id))) {
      memories = [...memories, ...(await activeMemoriesOf(store, plan))];
    }
    for (const { item, episode } of written) {
      outcomes.set(item.id, {
        item,
        outcome: "promoted",
        episode,
        memories: memories.filter((memory) => memory.sourceEpisodeIds.includes(episode.id)),
      });
    }
  }
  const items = plan.items.flatMap((item) => {
    const outcome = outcomes.get(item.id);
    return outcome ? [outcome] : [];
  });
  return {
    plan,
    items,
    verdicts,
    held: items.flatMap((applied) => (applied.outcome === "held" ? [applied.item] : [])),
  };
}

/**
 * The project's active memories on the promoted items' kinds and targets, exactly (every one, paged
 * to the end): where a promotion a retry found already stored was compiled to.
 */
async function activeMemoriesOf(store: ContextStore, plan: PromotionPlan): Promise<Memory[]> {
  const targetsByKind = new Map<string, Set<string>>();
  const untargeted = new Set<string>();
  for (const item of plan.items) {
    const { kind } = item.decision.memory;
    const target = targetOf(item.decision);
    if (target === undefined) untargeted.add(kind);
    else targetsByKind.set(kind, (targetsByKind.get(kind) ?? new Set()).add(target));
  }
  const lists = await Promise.all([
    ...[...targetsByKind].map(([kind, targets]) =>
      listOnTargets(store, plan.projectSubjectId, targets, { kind }),
    ),
    ...[...untargeted].map((kind) => listAllMemories(store, plan.projectSubjectId, { kind })),
  ]);
  return lists.flat();
}
