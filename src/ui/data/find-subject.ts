import type { ContextStore } from "../../context/context-store.js";
import { isRunId } from "../../scenario/run-record.js";
import { suggestSimilar } from "../format/did-you-mean.js";
import { UnknownSubjectError } from "./unknown-subject-error.js";

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
