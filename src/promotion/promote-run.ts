/**
 * Promotion end to end: read a run's and a project's decisions, plan, and apply (or only plan).
 */
import type { ContextStore } from "../context/context-store.js";
import { applyPromotion, type PromotionResult, type PromotionReview } from "./apply-promotion.js";
import { PromotionInputError } from "./errors/promotion-input-error.js";
import { type PromotionPlan, planPromotion } from "./plan-promotion.js";
import { readSubjectDecisions } from "./read-decisions.js";

/** Options of {@link planRunPromotion}. */
export interface PlanRunPromotionOptions {
  /** The run's subject. */
  runSubjectId: string;
  /** The long-lived project subject it is promoted into. */
  projectSubjectId: string;
  signal?: AbortSignal;
}

/**
 * Reads both subjects and plans the promotion of the run's active decisions. Writes nothing.
 * @throws PromotionInputError when the run and the project are one subject
 */
export async function planRunPromotion(
  store: ContextStore,
  options: PlanRunPromotionOptions,
): Promise<PromotionPlan> {
  const { runSubjectId, projectSubjectId } = options;
  if (runSubjectId === projectSubjectId) {
    throw new PromotionInputError(
      "into",
      `cannot promote ${runSubjectId} into itself: --into names the project subject`,
    );
  }
  const read = options.signal ? { signal: options.signal } : {};
  const [run, project] = await Promise.all([
    readSubjectDecisions(store, runSubjectId, read),
    readSubjectDecisions(store, projectSubjectId, read),
  ]);
  return planPromotion(
    run.decisions.filter((candidate) => candidate.memory.status === "active"),
    project.decisions,
    { runSubjectId, projectSubjectId, verdicts: project.verdicts },
  );
}

/**
 * Plans and applies the promotion of a run into a project (see {@link applyPromotion}).
 * @throws PromotionInputError for an unknown approve/reject id, or a run promoted into itself
 */
export async function promoteRun(
  store: ContextStore,
  options: PlanRunPromotionOptions & PromotionReview,
): Promise<PromotionResult> {
  const plan = await planRunPromotion(store, options);
  return applyPromotion(store, plan, options, options.signal ? { signal: options.signal } : {});
}
