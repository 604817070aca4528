import type { MemoryDraft } from "./compile-memories.js";
import type { JsonObject } from "./context-store.js";
import { unstorableTextPattern } from "./validate-input.js";

/** U+0000, or a UTF-16 surrogate without its partner: the id rule's pattern. */
const unstorable = unstorableTextPattern();

/**
 * `text` as every store can keep it: U+0000 removed (as Statewave strips NUL bytes from compiled
 * memory text, and Postgres text cannot hold it), an unpaired surrogate replaced by U+FFFD (what
 * a UTF-8 encoder writes for it). Text without either is returned as it is.
 */
export function storableText(text: string): string {
  // replace() with a global pattern starts at 0 and leaves lastIndex at 0: no state between calls.
  return text.replace(unstorable, (found) => (found === "\u0000" ? "" : "\uFFFD"));
}

/**
 * A compiled memory's text made storable on every store (see {@link storableText}): an episode's
 * payload may hold U+0000 (JSON text keeps it as `\u0000`), its memory's columns may not. The
 * same on SQLite and Postgres, so both stores compile one episode to the same memory.
 */
export function storableDraft(draft: MemoryDraft | null): MemoryDraft | null {
  if (draft === null) return null;
  const content = storableText(draft.content);
  const target = draft.target === null ? null : storableText(draft.target);
  if (content === draft.content && target === draft.target) {
    return draft;
  }
  const metadata: JsonObject = { ...draft.metadata };
  if (target !== null) metadata.target = target;
  return {
    ...draft,
    content,
    summary: storableText(draft.summary),
    target,
    metadata,
  };
}
