import type { ContextStore, Memory, MemoryQuery } from "./context-store.js";
import { listAllMemories, memoryQueryLimits } from "./memory-query.js";

/**
 * The exact reads the action-deciding parts share (the edit hooks, `beforeActing`, a decision's
 * life, the pipelines' planning): every matching memory, paged to the end, never the newest N.
 */

/** The kind of memory a decision compiles into (as `decision-life.ts` publishes it). */
const decisionKind = "architectural_decision";

/** Newest first, by creation time then id: the order one page of `listMemories` has. */
function newestFirst(left: Memory, right: Memory): number {
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
