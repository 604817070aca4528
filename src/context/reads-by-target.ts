import type { ContextStore, Memory, MemoryQuery } from "./context-store.js";
import type { NotRead } from "./left-out.js";
import { isRetraction, targetOf } from "./memory-metadata.js";
import { listAllMemories, memoryQueryLimits } from "./memory-query.js";
import { namesTarget, targetsNamedIn } from "./task-targets.js";

/**
 * The exact reads the action-deciding parts share (the edit hooks, `beforeActing`, a decision's
 * life, the pipelines' planning): every matching memory, paged to the end, never the newest N.
 */

/** The kind of memory a decision compiles into (as `decision-life.ts` publishes it). */
const decisionKind = "architectural_decision";

/** Newest first, by creation time then id: the order one page of `listMemories` has. */
export function newestFirst(left: Memory, right: Memory): number {
  if (left.createdAt !== right.createdAt) return left.createdAt < right.createdAt ? 1 : -1;
  return left.id < right.id ? 1 : left.id > right.id ? -1 : 0;
}

/**
 * Every memory of `query.kind` (and status) on any of `targets`, newest first: complete, however
 * many targets (the store takes at most 100 per query, so more are asked in turn) and however
 * large the subject. No targets: none.
 */
export async function listOnTargets(
  store: Pick<ContextStore, "listMemories">,
  subjectId: string,
  targets: Iterable<string>,
  query: Omit<MemoryQuery, "targets" | "targetPrefix" | "cursor"> & { signal?: AbortSignal } = {},
): Promise<Memory[]> {
  const unique = [...new Set(targets)];
  if (unique.length === 0) return [];
  const chunks: string[][] = [];
  for (let start = 0; start < unique.length; start += memoryQueryLimits.targets) {
    chunks.push(unique.slice(start, start + memoryQueryLimits.targets));
  }
  const pages = await Promise.all(
    chunks.map((chunk) => listAllMemories(store, subjectId, { ...query, targets: chunk })),
  );
  const [only] = pages;
  return pages.length === 1 && only !== undefined ? only : pages.flat().sort(newestFirst);
}

/**
 * Every active decision of the subject (`architectural_decision` memories, retractions among
 * them), newest first, paged to the end. What a question about "any decision on X" reads when X
 * can be named in a decision's words as well as by its target (the edit hooks), or when the
 * answer is the list itself (`beforeActing`).
 */
export async function allActiveDecisions(
  store: Pick<ContextStore, "listMemories">,
  subjectId: string,
  options: { signal?: AbortSignal } = {},
): Promise<Memory[]> {
  return listAllMemories(store, subjectId, { kind: decisionKind, ...options });
}

/** How many of the newest active decisions the count of those not read looks at (one page). */
export const countedPage = 50;

/** The decisions a task bears on, read exactly, and the page the others are counted from. */
export interface TaskDecisions {
  /** Every active decision on a target the task names or `targets` lists, and every untargeted one. */
  decisions: Memory[];
  /** The newest {@link countedPage} active decisions, and whether the subject holds more. */
  newest: { memories: Memory[]; more: boolean };
}

/**
 * The active decisions (retractions among them) `task` bears on, each read exactly by an indexed
 * query whose cost follows the task, not the subject's history: every one on a target the task's
 * words name (whole word, as stored or lower-cased) or `targets` lists, and every one without a
 * target (as the edit hooks read them). Besides, the newest page of {@link countedPage} active
 * decisions, for {@link notReadAmong} to count the others from (not to act on).
 */
export async function decisionsForTask(
  store: Pick<ContextStore, "listMemories">,
  subjectId: string,
  task: string,
  options: { targets?: readonly string[] } = {},
): Promise<TaskDecisions> {
  const listed = new Set(options.targets ?? []);
  const query = { kind: decisionKind };
  const [onTargets, untargeted, newest] = await Promise.all([
    listOnTargets(store, subjectId, [...targetsNamedIn(task), ...listed], query),
    listAllMemories(store, subjectId, { ...query, untargeted: true }),
    store.listMemories(subjectId, { ...query, limit: countedPage }),
  ]);
  const named = onTargets.filter((memory) => {
    const target = targetOf(memory) ?? "";
    return listed.has(target) || namesTarget(task, target);
  });
  return {
    decisions: [...named, ...untargeted].sort(newestFirst),
    newest: { memories: newest.memories, more: newest.nextCursor !== null },
  };
}

/**
 * How many active decisions (retractions not counted) are not among `read`: exact when the newest
 * page is the subject's last, else a lower bound (those on the page not read).
 */
export function notReadAmong(newest: TaskDecisions["newest"], read: readonly Memory[]): NotRead {
  const ids = new Set(read.map((memory) => memory.id));
  const count = newest.memories.filter(
    (memory) => !ids.has(memory.id) && !isRetraction(memory),
  ).length;
  return { count, atLeast: newest.more };
}
