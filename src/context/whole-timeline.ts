import type { ContextStore, Episode, Memory, Timeline } from "./context-store.js";

/** Statewave caps a timeline page at 100 episodes and 100 memories. */
const pageSize = 100;

/**
 * A subject's timeline page after page, oldest first: by cursor where the store hands one out
 * (embedded, Postgres, `serve`: each page costs the same however deep), else by offset (a
 * Statewave v0.7.1, which has no cursor). Stops after a short page without a cursor, or at `null`.
 */
async function* timelinePages(
  store: ContextStore,
  subjectId: string,
  options: { signal?: AbortSignal | undefined; pageSize?: number; maxPages?: number },
): AsyncGenerator<Timeline> {
  const size = options.pageSize ?? pageSize;
  const maxPages = options.maxPages ?? Number.POSITIVE_INFINITY;
  const signal = options.signal ? { signal: options.signal } : {};
  let cursor: string | undefined;
  for (let page = 0; page < maxPages; page += 1) {
    const part = await store.getTimeline(subjectId, {
      limit: size,
      ...(cursor === undefined ? { offset: page * size } : { cursor }),
      ...signal,
    });
    yield part;
    if (part.nextCursor === null) return;
    if (typeof part.nextCursor === "string") {
      cursor = part.nextCursor;
      continue;
    }
    if (part.episodes.length < size && part.memories.length < size) return;
  }
}

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
  for await (const page of timelinePages(store, subjectId, options)) await onPage(page);
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
  for await (const part of timelinePages(store, subjectId, options)) {
    episodes.push(...part.episodes);
    memories.push(...part.memories);
  }
  return { subjectId, episodes, memories };
}
