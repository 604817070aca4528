import {
  checkEdits,
  type EditHookContext,
  type FileVerdict,
  type HookAnswer,
  postToolUse,
} from "./edit-hooks.js";
import type { HookInput } from "./hook-input.js";
import { modulesNamespace, raiseModuleEscalation } from "./module-escalation.js";

/**
 * `PostToolUse` of a Bash call whose writes are known (the working tree before and after it, see
 * worktree-snapshot.ts): each file it changed is judged as an edit would have been, then recorded
 * as the session's edit (a claim, as `postToolUse` records). A write the hook would have refused —
 * a retired, frozen, claimed or disputed module — already happened: the model is told what it
 * did and what to do now, and a person is asked to settle the module (an escalation on its
 * register), whatever the command's shape.
 */
export async function postBashCall(
  context: EditHookContext,
  input: HookInput,
  written: readonly string[],
): Promise<HookAnswer> {
  if (written.length === 0) return { files: [] };
  // Judged before this session's own claims are recorded (they never hold the session back).
  const judged = await checkEdits(context, written);
  const recorded = await postToolUse(context, input, written);
  const refused = judged.filter((file) => file.verdict && file.verdict.decision !== "allow");
  if (refused.length === 0) return recorded;
  const escalate = context.escalate ?? raiseModuleEscalation;
  const modules = new Set<string>();
  const unraised: string[] = [];
  for (const file of refused) {
    const verdict = file.verdict;
    if (!verdict || modules.has(verdict.module)) continue;
    modules.add(verdict.module);
    // A dispute is open already; a live claim of another session was escalated by postToolUse.
    const kinds = verdict.conflicts.map((conflict) => conflict.type as string);
    if (kinds.includes("disputed") || kinds.includes("claimed")) continue;
    const decided = verdict.conflicts.find((conflict) => "decision" in conflict);
    if (decided === undefined || !("decision" in decided)) continue;
    const author = decided.decision.author;
    try {
      await escalate({
        store: context.store,
        subjectId: context.subjectId,
        module: verdict.module,
        holders: [author, context.agent],
        values: [`${decided.type}-by:${author}`, `written-by:${context.agent}`],
      });
    } catch (error) {
      if (context.signal?.aborted) throw error;
      unraised.push(verdict.module);
    }
  }
  return {
    decision: "deny",
    reason: writtenReason(refused, [...modules], unraised),
    ...(recorded.context !== undefined ? { context: recorded.context } : {}),
    files: judged,
  };
}

/** What the model reads after a command wrote where it should not have. */
function writtenReason(
  refused: readonly FileVerdict[],
  modules: readonly string[],
  unraised: readonly string[],
): string {
  const paths = refused.map((file) => file.path);
  const asked =
    unraised.length === 0
      ? "A person has been asked to settle"
      : `Raising the escalation of ${unraised.join(", ")} failed: tell a person, who must settle`;
  return [
    `shared-ctx: your Bash command ran and changed ${paths.join(", ")}, which the shared context says not to edit now (the hook saw it in the working tree after the command):`,
    ...refused.map((file) => file.verdict?.reason ?? ""),
    `${asked} ${modules.map((module) => `${modulesNamespace}/${module}`).join(", ")}. Undo these changes now (git checkout -- FILE for a tracked file, delete a file you created) unless a person keeps them, and do not change ${modules.join(", ")} again until it is settled.`,
  ].join("\n");
}
