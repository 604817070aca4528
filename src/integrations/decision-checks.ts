import type { Memory } from "../context/context-store.js";
import type { ContextRead, InvalidationNotice, SharedContext } from "../context/shared-context.js";
import type { Escalation } from "../crdt/escalation.js";
import { type CheckSharedDecisionsResult, checkSharedDecisionsResult } from "./tool-results.js";

/**
 * The decisions each caller's latest check returned, per shared context: the next check lists the
 * ones no longer active as superseded. Keyed by the context so that every tool set (AI SDK, MCP)
 * over one context agrees, and dropped with it.
 */
const previousChecks = new WeakMap<SharedContext, Map<string, Memory[]>>();

/**
 * One `check_shared_decisions` call: `beforeActing` as `callerId`, shaped for a model, with the
 * decisions it read at its previous check and since superseded, and `notices` (what the server
 * pushed to it since) leading the summary.
 */
export async function checkSharedDecisions(
  shared: SharedContext,
  callerId: string,
  task: string,
  options: {
    maxTokens?: number;
    /** A project subject read beside the caller's (see `beforeActing`'s `projectSubjectId`). */
    projectSubjectId?: string;
    notices?: readonly InvalidationNotice[];
    /**
     * Open disputes to list beside the shared state's (e.g. LangGraph store items'), read once
     * `beforeActing` caught the replica up.
     */
    disputes?: () => readonly Escalation[];
  } = {},
): Promise<CheckSharedDecisionsResult> {
  const read = await shared.beforeActing(callerId, task, {
    ...(options.maxTokens === undefined ? {} : { maxTokens: options.maxTokens }),
    ...(options.projectSubjectId === undefined
      ? {}
      : { projectSubjectId: options.projectSubjectId }),
  });
  let byCaller = previousChecks.get(shared);
  if (!byCaller) {
    byCaller = new Map();
    previousChecks.set(shared, byCaller);
  }
  const previous = byCaller.get(callerId) ?? [];
  const stillActive = new Set(await stillActiveOf(shared, previous, read));
  byCaller.set(callerId, [
    ...read.decisions,
    ...previous.filter((memory) => stillActive.has(memory.id)),
  ]);
  const extra = options.disputes?.() ?? [];
  const withDisputes =
    extra.length > 0 ? { ...read, disputes: [...read.disputes, ...extra] } : read;
  return checkSharedDecisionsResult(
    withDisputes,
    previous.filter((memory) => !stillActive.has(memory.id)),
    options.notices ?? [],
  );
}

/** A check result as the text a model reads: the summary first, then the details as JSON. */
export function checkResultText(result: CheckSharedDecisionsResult): string {
  const { summary, ...details } = result;
  return `${summary}\n\n${JSON.stringify(details, null, 2)}`;
}

/**
 * The decisions of the previous check that this read did not return (it reads what the task bears
 * on) but are still active, each looked up by id: they are not superseded.
 */
async function stillActiveOf(
  shared: SharedContext,
  previous: readonly Memory[],
  read: ContextRead,
): Promise<string[]> {
  const returned = new Set(read.decisions.map((memory) => memory.id));
  const missing = previous.filter(
    (memory) => !returned.has(memory.id) && memory.subjectId === shared.subjectId,
  );
  const found = await Promise.all(
    missing.map((memory) => shared.store.getMemory(shared.subjectId, memory.id)),
  );
  return found.flatMap((memory) => (memory?.status === "active" ? [memory.id] : []));
}
