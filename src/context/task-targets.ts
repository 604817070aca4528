/**
 * The targets a task's words can name, as candidates for an exact read by target: `beforeActing`
 * asks the store for the decisions on these (an indexed read whose cost follows the task, not the
 * subject's history), then keeps those whose target the task really names ({@link namesTarget}).
 * Pure.
 */

/** The most boundaries one word is split at (a path of 12 segments gives 78 candidates). */
const maxBoundaries = 12;
/** The longest run of words a multi-word target (`legacy billing`) is looked for in. */
const maxWords = 3;

/** Whether `task` names `target` as a whole word, in any case (`legacy-billing`, `auth/jwt`). */
export function namesTarget(task: string, target: string): boolean {
  const escaped = target.toLowerCase().replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  return new RegExp(`(^|[^\\w-])${escaped}($|[^\\w-])`).test(task.toLowerCase());
}

/**
 * Every part of one word a target named by it can be: the word, and each stretch of it between
 * two of its boundaries (a character other than a letter, digit, `_` or `-`: `/`, `.`, `:`), so
 * `src/legacy-billing/a.ts` yields `src`, `legacy-billing`, `src/legacy-billing`, `a.ts`, …
 */
function partsOf(word: string): string[] {
  const cuts = [0];
  for (let index = 0; index < word.length && cuts.length <= maxBoundaries; index += 1) {
    if (/[^\w-]/.test(word[index] ?? "")) cuts.push(index, index + 1);
  }
  cuts.push(word.length);
  const parts: string[] = [];
  for (let start = 0; start < cuts.length; start += 2) {
    for (let end = start + 1; end < cuts.length; end += 2) {
      const part = word.slice(cuts[start], cuts[end]);
      if (part !== "") parts.push(part);
    }
  }
  return parts;
}

/**
 * The candidate targets `task` can name: each word's parts (see {@link partsOf}) and runs of up
 * to three words, as written and lower-cased. A target spelled in another case than both is not
 * among them (the decisions' targets are matched as stored).
 */
export function targetsNamedIn(task: string): string[] {
  const words = task.split(/\s+/).filter((word) => word !== "");
  const candidates = new Set<string>();
  for (const word of words) for (const part of partsOf(word)) candidates.add(part);
  for (let size = 2; size <= maxWords; size += 1) {
    for (let start = 0; start + size <= words.length; start += 1) {
      const run = words.slice(start, start + size).join(" ");
      for (const part of partsOf(run)) if (part.includes(" ")) candidates.add(part);
    }
  }
  for (const candidate of [...candidates]) candidates.add(candidate.toLowerCase());
  return [...candidates];
}
