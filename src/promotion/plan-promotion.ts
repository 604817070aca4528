/**
 * Planning a promotion: which of a run's active decisions enter a project subject as they are,
 * which supersede the project's own, which conflict with them and need a reviewer's approval, and
 * which were promoted (or rejected) before. Pure: no store, no clock; same input, same plan.
 */
import { type Authority, compareAuthority, mayOverrule } from "../context/authority.js";
import type { Memory } from "../context/context-store.js";
import type { PromotionSource, PromotionVerdict } from "./promotion-records.js";

/** A decision as planning sees it: the memory and what its episodes say about its writer. */
export interface PromotionCandidate {
  memory: Memory;
  /** Who wrote it (`metadata.source`, else its episode's source). */
  author: string;
  authority: Authority;
  /** The memory ids its writer had read when writing it (`provenance.read_memory_ids`). */
  readMemoryIds: readonly string[];
  /** For a project decision that a promotion wrote: the run decision it came from. */
  promotedFrom?: PromotionSource;
}

/** Why a run decision may not overrule one project decision on its target. */
export interface ConflictSide {
  /** The project decision. */
  decision: PromotionCandidate;
  /** The run's writer never read it (nor the run decision it was promoted from). */
  unread: boolean;
  /** It has higher authority than the run's decision. */
  outranks: boolean;
}

/** One run decision in a plan; `id` is the run memory id, what `--approve` / `--reject` name. */
export type PromotionItem =
  | { id: string; status: "new"; decision: PromotionCandidate }
  | {
      id: string;
      status: "supersedes";
      decision: PromotionCandidate;
      /** The active project decisions on its target, which it legitimately overrules. */
      supersedes: PromotionCandidate[];
    }
  | {
      id: string;
      status: "conflict";
      decision: PromotionCandidate;
      /** Every active project decision on its target; `against` says which it may not overrule. */
      projectDecisions: PromotionCandidate[];
      against: ConflictSide[];
    }
  | {
      id: string;
      status: "unchanged";
      decision: PromotionCandidate;
      /** The project decision an earlier promotion wrote from it (whatever its status now). */
      promoted: PromotionCandidate;
    }
  | {
      id: string;
      status: "rejected";
      decision: PromotionCandidate;
      /** The latest verdict on it: a rejection, so it stays out until someone approves it. */
      rejection: PromotionVerdict;
    };

/** A promotion plan: one item per active run decision, in the run's order (oldest first). */
export interface PromotionPlan {
  runSubjectId: string;
  projectSubjectId: string;
  items: PromotionItem[];
}

/** What {@link planPromotion} needs besides the two sides' decisions. */
export interface PlanPromotionOptions {
  runSubjectId: string;
  projectSubjectId: string;
  /** Past verdicts recorded in the project, oldest first: the latest on an item counts. */
  verdicts?: readonly PromotionVerdict[];
}

/** Kind and target: the supersede key. A decision without a target has no rival. */
function keyOf(memory: Memory): string | undefined {
  const target = memory.metadata.target;
  return typeof target === "string" ? `${memory.kind}\u0000${target}` : undefined;
}

/**
 * Whether the run decision's writer knew the project decision: read it, read the run decision it
 * was promoted from, or wrote it (an author restating, as the stores' own supersede rule has it).
 */
function knew(run: PromotionCandidate, project: PromotionCandidate): boolean {
  if (run.author === project.author) return true;
  if (run.readMemoryIds.includes(project.memory.id)) return true;
  const from = project.promotedFrom?.memoryId;
  return from !== undefined && run.readMemoryIds.includes(from);
}

/** The project decisions `run` may not overrule, with why; empty when it may overrule them all. */
export function conflictsWith(
  run: PromotionCandidate,
  projectDecisions: readonly PromotionCandidate[],
): ConflictSide[] {
  return projectDecisions.flatMap((project) => {
    const unread = !knew(run, project);
    const outranks = !mayOverrule(run.authority, project.authority);
    return unread || outranks ? [{ decision: project, unread, outranks }] : [];
  });
}

/**
 * Plans the promotion of a run's decisions into a project subject.
 *
 * - `unchanged`: a project decision (of any status) was promoted from this run decision before;
 * - `rejected`: the latest verdict on it is a rejection;
 * - `new`: the project has no active decision on its kind and target;
 * - `supersedes`: it has some, and the run decision legitimately overrules each of them: its writer
 *   had read it (or wrote it) and its authority is at least that decision's;
 * - `conflict`: otherwise (a project decision its writer never read, or one of higher authority).
 *
 * @param runDecisions the run's active decisions
 * @param projectDecisions the project's decisions, every status (superseded ones too: an earlier
 *   promotion's decision may have been superseded since, and must not come back)
 */
export function planPromotion(
  runDecisions: readonly PromotionCandidate[],
  projectDecisions: readonly PromotionCandidate[],
  options: PlanPromotionOptions,
): PromotionPlan {
  const promoted = new Map<string, PromotionCandidate>();
  const activeByKey = new Map<string, PromotionCandidate[]>();
  for (const project of projectDecisions) {
    const from = project.promotedFrom;
    if (from?.subjectId === options.runSubjectId && !promoted.has(from.memoryId)) {
      promoted.set(from.memoryId, project);
    }
    const key = keyOf(project.memory);
    if (key === undefined || project.memory.status !== "active") continue;
    activeByKey.set(key, [...(activeByKey.get(key) ?? []), project]);
  }
  const latestVerdict = new Map<string, PromotionVerdict>();
  for (const verdict of options.verdicts ?? []) {
    if (verdict.subjectId === options.runSubjectId) latestVerdict.set(verdict.memoryId, verdict);
  }
  const items = runDecisions.map((decision): PromotionItem => {
    const id = decision.memory.id;
    const earlier = promoted.get(id);
    if (earlier !== undefined) return { id, status: "unchanged", decision, promoted: earlier };
    const verdict = latestVerdict.get(id);
    if (verdict?.verdict === "rejected") {
      return { id, status: "rejected", decision, rejection: verdict };
    }
    const key = keyOf(decision.memory);
    const rivals = key === undefined ? [] : (activeByKey.get(key) ?? []);
    if (rivals.length === 0) return { id, status: "new", decision };
    const against = conflictsWith(decision, rivals);
    if (against.length === 0) return { id, status: "supersedes", decision, supersedes: rivals };
    return { id, status: "conflict", decision, projectDecisions: rivals, against };
  });
  return {
    runSubjectId: options.runSubjectId,
    projectSubjectId: options.projectSubjectId,
    items,
  };
}

/** Highest authority first; equal ones keep their order (a stable sort). */
export function byAuthority<T extends { authority: Authority }>(candidates: readonly T[]): T[] {
  return [...candidates].sort((a, b) => compareAuthority(b.authority, a.authority));
}
