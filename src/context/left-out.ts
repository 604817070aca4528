import type { Memory } from "./context-store.js";
import { isRetraction, sourceOf, targetOf } from "./memory-metadata.js";
import { namesTarget } from "./task-targets.js";

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
  /** `count` is a lower bound: more active decisions exist than the count read saw. */
  atLeast: boolean;
}

/** The active decisions not in the list given, counted (not read): at least `count` of them. */
export interface NotRead {
  count: number;
  atLeast: boolean;
}

/**
 * `assembledContext` completed: the newest active decision on each target `task` names, when the
 * ranking left it out, in a section of its own; then one line counting the active decisions still
 * not shown ("412 other active decisions are not in this context …"), when there are any.
 * @param decisions the active decisions read, newest first (retractions among them): every one on
 *   each target the task names
 * @param included the memory ids the ranked context already shows
 * @param notRead the other active decisions, counted but not read (@default none)
 */
export function withLeftOut(
  assembledContext: string,
  task: string,
  decisions: readonly Memory[],
  included: ReadonlySet<string>,
  notRead: NotRead = { count: 0, atLeast: false },
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
  const count = standing.filter((memory) => !shown.has(memory.id)).length + notRead.count;
  const atLeast = notRead.atLeast;
  let text = assembledContext;
  if (named.length > 0) {
    const lines = named.map(
      (memory) => `- ${memory.content} (${sourceOf(memory)}, on ${targetOf(memory) ?? ""})`,
    );
    text += `\n## Decisions on what the task names\n${lines.map((line) => `${line}\n`).join("")}`;
  }
  if (count > 0) {
    const many = count !== 1 || atLeast;
    text += `\n${atLeast ? "At least " : ""}${count} other active decision${many ? "s are" : " is"} not in this context (left out for the token budget); name a target in the task to read its decisions, get_decision_history for one.\n`;
  }
  return { text, named, count, atLeast };
}
