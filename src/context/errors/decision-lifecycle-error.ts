import { SharedCtxError } from "../../errors.js";

/**
 * Why a supersede-by-id or a retraction was refused:
 * - `not-found`: the subject has no memory with that id;
 * - `not-active`: it was superseded or retracted already (the message names by whom);
 * - `no-target`: it has no target, and the stores replace a memory only within its kind and target;
 * - `other-subject-matter`: the new decision names another kind or target than the one it replaces.
 */
export type DecisionLifecycleProblem =
  | "not-found"
  | "not-active"
  | "no-target"
  | "other-subject-matter";

/** A decision's life-cycle step (`decide({ supersedes })`, `retract`) that the rules refuse. */
export class DecisionLifecycleError extends SharedCtxError {
  override readonly name: string = "DecisionLifecycleError";
  readonly memoryId: string;
  readonly problem: DecisionLifecycleProblem;

  constructor(memoryId: string, problem: DecisionLifecycleProblem, message: string) {
    super(message);
    this.memoryId = memoryId;
    this.problem = problem;
  }
}
