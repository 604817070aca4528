import type { Memory } from "./context-store.js";
import { isRetraction, sourceOf, targetOf } from "./memory-metadata.js";

/**
 * What the token budget left out of a ranked context, put back in words: the newest decision on
 * every target the task names (always in, ranked or not), and how many other active decisions the
 * text does not show, with where to find them. Ranked search only fills the prompt; it never
 * silently drops a decision. Pure.
 */

/** What {@link withLeftOut} returns. */
export interface LeftOut {
  /** The assembled context with the section of named targets and the count line appended. */
  text: string;
  /** The newest decision on each target the task names that the ranking had left out. */
  named: Memory[];
  /** Active decisions neither ranked in nor named: counted in the text. */
  count: number;
}

/** The task's words, for whole-word matching of targets (`legacy-billing`, `auth/jwt`). */
function namesTarget(task: string, target: string): boolean {
  const escaped = target.toLowerCase().replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  return new RegExp(`(^|[^\\w-])${escaped}($|[^\\w-])`).test(task.toLowerCase());
}

/**
 * `assembledContext` completed: the newest active decision on each target `task` names, when the
 * ranking left it out, in a section of its own; then one line counting the active decisions still
 * not shown ("412 other active decisions are not in this context …"), when there are any.
 * @param decisions every active decision of the subject, newest first (retractions among them)
 * @param included the memory ids the ranked context already shows
 */
export function withLeftOut(
  assembledContext: string,
  task: string,
  decisions: readonly Memory[],
  included: ReadonlySet<string>,
): LeftOut {
  const standing = decisions.filter((memory) => !isRetraction(memory));
  const newestOn = new Map<string, Memory>();
  for (const memory of standing) {
    const target = targetOf(memory);
    if (target !== undefined && !newestOn.has(target)) newestOn.set(target, memory);
  }
  const named = [...newestOn.entries()]
    .filter(([target, memory]) => !included.has(memory.id) && namesTarget(task, target))
    .map(([, memory]) => memory);
  const shown = new Set([...included, ...named.map((memory) => memory.id)]);
  const count = standing.filter((memory) => !shown.has(memory.id)).length;
  let text = assembledContext;
  if (named.length > 0) {
    const lines = named.map(
      (memory) => `- ${memory.content} (${sourceOf(memory)}, on ${targetOf(memory) ?? ""})`,
    );
    text += `\n## Decisions on what the task names\n${lines.map((line) => `${line}\n`).join("")}`;
  }
  if (count > 0) {
    text += `\n${count} other active decision${count === 1 ? " is" : "s are"} not in this context (left out for the token budget); check_shared_decisions lists them all, get_decision_history for one.\n`;
  }
  return { text, named, count };
}
