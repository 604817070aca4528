import type { Episode, Memory, Timeline, TimelineOptions } from "../context-store.js";
import { InvalidCursorError } from "../errors/invalid-cursor-error.js";
import type { StatewaveTimeline, TimelineParams } from "./statewave-types.js";

/**
 * `StatewaveStore.getTimeline`'s paging on any server: `serve` pages by its own cursors (`t1.…`,
 * passed through); a server without cursors (Statewave >= 1.5, or v0.7.1 read from this store's
 * episode log) is paged by offsets this store writes into its own cursors, `o1.<offset>`.
 */

/** One timeline request as this store sends it. */
export interface TimelinePaging {
  limit: number;
  /** The offset the page starts at (the request's, or an `o1.` cursor's). */
  offset: number;
  newestFirst: boolean;
  /** What the server is sent. */
  params: TimelineParams;
}

const ownCursor = /^o1\.(0|[1-9][0-9]{0,15})$/;

/** The request's paging: a cursor of this store's own is an offset, any other goes to the server. */
export function timelinePaging(options: TimelineOptions): TimelinePaging {
  const limit = options.limit ?? 100;
  const newestFirst = options.newestFirst ?? false;
  const cursor = options.cursor ?? null;
  const own = cursor === null ? undefined : ownCursor.exec(cursor)?.[1];
  if (cursor !== null && own === undefined && !cursor.startsWith("t1.")) {
    throw new InvalidCursorError(cursor, "getTimeline");
  }
  const offset = own !== undefined ? Number(own) : (options.offset ?? 0);
  const params: TimelineParams =
    cursor !== null && own === undefined ? { limit, cursor } : { limit, offset };
  if (newestFirst) params.newestFirst = true;
  return { limit, offset, newestFirst, params };
}

/** The next offset cursor after an offset page, or null when nothing follows. */
function nextOffsetCursor(paging: TimelinePaging, more: boolean): string | null | undefined {
  if (!more) return null;
  // Newest first pages on by offset alone (as `serve` does): no cursor.
  return paging.newestFirst ? undefined : `o1.${paging.offset + paging.limit}`;
}

/**
 * A server's page as the store's: `serve`'s cursor as it sent it; for a server without cursors
 * one of this store's offsets, from its `…_has_more` flags (Statewave >= 1.5) or, without them, a
 * full page (a full last page then costs one more, empty read).
 */
export function serverTimeline(
  subjectId: string,
  timeline: StatewaveTimeline,
  paging: TimelinePaging,
): Timeline {
  const page: Timeline = {
    subjectId: timeline.subjectId ?? subjectId,
    episodes: timeline.episodes,
    memories: timeline.memories,
  };
  if (timeline.episodesHasMore !== undefined) page.episodesHasMore = timeline.episodesHasMore;
  if (timeline.memoriesHasMore !== undefined) page.memoriesHasMore = timeline.memoriesHasMore;
  if (timeline.nextCursor !== undefined) {
    page.nextCursor = timeline.nextCursor;
    return page;
  }
  const flags = [timeline.episodesHasMore, timeline.memoriesHasMore];
  const more = flags.every((flag) => flag !== undefined)
    ? flags.includes(true)
    : Math.max(timeline.episodes.length, timeline.memories.length) >= paging.limit;
  const next = nextOffsetCursor(paging, more);
  if (next !== undefined) page.nextCursor = next;
  return page;
}

/** A page of the whole (log-read) timeline of a capped server, by offset from either end. */
export function sliceTimeline(
  subjectId: string,
  whole: { episodes: Episode[]; memories: Memory[] },
  paging: TimelinePaging,
): Timeline {
  const slice = <T>(items: T[]): T[] => {
    if (!paging.newestFirst) return items.slice(paging.offset, paging.offset + paging.limit);
    const end = Math.max(0, items.length - paging.offset);
    return items.slice(Math.max(0, end - paging.limit), end);
  };
  const beyond = paging.offset + paging.limit;
  const page: Timeline = {
    subjectId,
    episodes: slice(whole.episodes),
    memories: slice(whole.memories),
    episodesHasMore: whole.episodes.length > beyond,
    memoriesHasMore: whole.memories.length > beyond,
  };
  const next = nextOffsetCursor(
    paging,
    whole.episodes.length > beyond || whole.memories.length > beyond,
  );
  if (next !== undefined) page.nextCursor = next;
  return page;
}
