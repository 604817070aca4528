import type { ContextBundle, ContextStore, Memory } from "./context-store.js";
import type { NotRead } from "./left-out.js";
import {
  allActiveDecisions,
  decisionsForTask,
  newestFirst,
  notReadAmong,
} from "./reads-by-target.js";

/** The kind of memory a decision compiles into. */
const decisionKind = "architectural_decision";

/**
 * The ranked context for `task`, the active decisions it bears on (retractions among them),
 * newest first, and how many others there are.
 */
export async function readForTask(
  store: ContextStore,
  subjectId: string,
  task: string,
  options: { maxTokens?: number; projectSubjectId?: string; targets?: readonly string[] },
): Promise<{ bundle: ContextBundle; activeDecisions: Memory[]; notRead: NotRead }> {
  // The decisions the task bears on, exactly and by index (their cost follows the task, not
  // the history), the others counted; a project layer weighs every run decision against the
  // project's, so it reads them all.
  const [bundle, forTask] = await Promise.all([
    store.getContext(
      subjectId,
      task,
      options.maxTokens !== undefined ? { maxTokens: options.maxTokens } : {},
    ),
    options.projectSubjectId === undefined
      ? decisionsForTask(store, subjectId, task, {
          ...(options.targets ? { targets: options.targets } : {}),
        })
      : allActiveDecisions(store, subjectId).then((decisions) => ({
          decisions,
          newest: { memories: [], more: false },
        })),
  ]);
  const ranked = bundle.facts.filter(
    (memory) => memory.kind === decisionKind && memory.status === "active",
  );
  const known = new Set(forTask.decisions.map((memory) => memory.id));
  const activeDecisions = [
    ...forTask.decisions,
    ...ranked.filter((memory) => !known.has(memory.id)),
  ].sort(newestFirst);
  return { bundle, activeDecisions, notRead: notReadAmong(forTask.newest, activeDecisions) };
}
