import type { ContextStore, Episode, Memory, Timeline } from "./context-store.js";

/** Statewave caps a timeline page at 100 episodes and 100 memories. */
const pageSize = 100;

/**
 * A subject's whole timeline, page by page (oldest first), on any store: the one reader the run
 * views, promotion and a decision's history share.
 * @param options.maxPages stop after this many pages (@default no bound)
 */
export async function readWholeTimeline(
  store: ContextStore,
  subjectId: string,
  options: { signal?: AbortSignal | undefined; maxPages?: number } = {},
): Promise<Timeline> {
  const episodes: Episode[] = [];
  const memories: Memory[] = [];
  const maxPages = options.maxPages ?? Number.POSITIVE_INFINITY;
  for (let page = 0; page < maxPages; page += 1) {
    const part = await store.getTimeline(subjectId, {
      limit: pageSize,
      offset: page * pageSize,
      ...(options.signal ? { signal: options.signal } : {}),
    });
    episodes.push(...part.episodes);
    memories.push(...part.memories);
    if (part.episodes.length < pageSize && part.memories.length < pageSize) break;
  }
  return { subjectId, episodes, memories };
}
