import { denialEpisode, editsSubjectOf } from "./edit-activity.js";
import type { EditHookContext, FileVerdict } from "./edit-hooks.js";
import type { EditVerdict } from "./edit-policy.js";

/**
 * The records of refused edits (what `watch` lists under "Edits refused"), written after the
 * verdict is final: the hooks answer first, record second.
 */

/** Records each refused (or asked) file of a verdict, as `watch` lists them; nothing when none. */
export async function recordRefusals(
  context: EditHookContext,
  tool: string,
  files: readonly FileVerdict[],
): Promise<void> {
  const options = context.signal ? { signal: context.signal } : {};
  let recorded = 0;
  for (const file of files) {
    const verdict = file.verdict;
    if (!verdict || verdict.decision === "allow") continue;
    await context.store.createEpisode(
      denialEpisode({
        subjectId: context.subjectId,
        agent: context.agent,
        module: verdict.module,
        path: file.path,
        tool,
        decision: verdict.decision,
        why: verdict.conflicts.map(conflictSummary).join("; "),
      }),
      options,
    );
    recorded += 1;
  }
  if (recorded > 0) await context.store.compileMemories(editsSubjectOf(context.subjectId), options);
}

/** A conflict in a few words, for the record of a refused edit (what `watch` lists). */
export function conflictSummary(conflict: EditVerdict["conflicts"][number]): string {
  switch (conflict.type) {
    case "retired":
      return `retired by ${conflict.decision.author} ("${conflict.decision.content}")`;
    case "frozen":
      return `frozen by ${conflict.decision.author} ("${conflict.decision.content}")`;
    case "claimed":
      return `held by ${conflict.claim.agent}`;
    case "disputed":
      return `${conflict.about} in dispute`;
  }
}
