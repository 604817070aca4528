import type { ContextStore } from "../../context/context-store.js";
import { isRunId } from "../../scenario/run-record.js";
import { suggestSimilar } from "../format/did-you-mean.js";
import { lastRunAlias, resolveRunId } from "./find-run.js";
import { UnknownRunError } from "./unknown-run-error.js";
import { UnknownSubjectError } from "./unknown-subject-error.js";

/**
 * The subject a user meant, wherever a subject or a run is taken (`watch`, `promote`): `last`
 * (the newest run), a whole run id, a subject the store has episodes for, else a unique prefix of
 * a run id (`sw-4e5f`, `4e5f`). `known` is false when none of these matched: the input itself is
 * returned and the caller says what an empty subject means (live `watch` waits for it).
 * @throws UnknownRunError for `last` without runs, or a prefix of several runs (naming a few)
 */
export async function resolveSubjectInput(
  store: ContextStore,
  input: string,
  options: { storeName?: string; signal?: AbortSignal } = {},
): Promise<{ subjectId: string; known: boolean }> {
  if (input === lastRunAlias || isRunId(input)) {
    return { subjectId: await resolveRunId(store, input, options), known: true };
  }
  const page = await store.getTimeline(input, { limit: 1, signal: options.signal });
  if (page.episodes.length > 0) return { subjectId: input, known: true };
  try {
    return { subjectId: await resolveRunId(store, input, options), known: true };
  } catch (error) {
    if (error instanceof UnknownRunError && error.matches.length > 1) throw error;
    return { subjectId: input, known: false };
  }
}

/** How many subjects an unknown-subject error lists. */
const listed = 6;

/**
 * The error for a subject with nothing in it: the subjects the store holds (people's own
 * subjects before run ids, which `shared-ctx runs` lists better) and the near misses.
 */
export async function unknownSubjectError(
  store: ContextStore,
  subjectId: string,
  options: { storeName?: string; signal?: AbortSignal } = {},
): Promise<UnknownSubjectError> {
  const page = await store.listSubjects({ limit: 200, signal: options.signal });
  const ids = page.subjects.map((subject) => subject.subjectId);
  const named = ids.filter((id) => !isRunId(id));
  const runs = ids.filter((id) => isRunId(id));
  const nearMisses = suggestSimilar(subjectId, ids);
  const shown = [...named, ...runs].slice(0, listed);
  const more = ids.length - shown.length;
  return new UnknownSubjectError({
    subjectId,
    knownSubjects: more > 0 ? [...shown, `… ${more} more`] : shown,
    nearMisses,
    ...(options.storeName !== undefined ? { storeName: options.storeName } : {}),
  });
}
