import type { ContextStore, Episode, Memory, Timeline } from "./context-store.js";

/** Statewave caps a timeline page at 100 episodes and 100 memories. */
const pageSize = 100;

/**
 * Hands a subject's timeline to `onPage` one page at a time, oldest first, holding no more than
 * one page: what a reader that folds or prints the history uses instead of {@link readWholeTimeline}.
 * @param options.pageSize episodes (and memories) per page (@default 100, Statewave's cap)
 */
export async function forEachTimelinePage(
  store: ContextStore,
  subjectId: string,
  onPage: (page: Timeline) => void | Promise<void>,
  options: { signal?: AbortSignal | undefined; pageSize?: number } = {},
): Promise<void> {
  const size = options.pageSize ?? pageSize;
  for (let page = 0; ; page += 1) {
    const part = await store.getTimeline(subjectId, {
      limit: size,
      offset: page * size,
      ...(options.signal ? { signal: options.signal } : {}),
    });
    await onPage(part);
    if (part.episodes.length < size && part.memories.length < size) return;
  }
}

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
