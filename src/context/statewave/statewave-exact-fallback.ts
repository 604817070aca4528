import type {
  ChangePage,
  Episode,
  Memory,
  MemoryPage,
  MemoryQuery,
  Timeline,
} from "../context-store.js";
import { InvalidCursorError } from "../errors/invalid-cursor-error.js";
import { memoryMatches, validateChangesLimit, validateMemoryQuery } from "../memory-query.js";

/**
 * The exact reads of `StatewaveStore` on a server without `serve`'s routes (a real Statewave
 * v0.7.1): the best its API allows, never more than what it can see. Paged by offsets into what
 * was read (cursors `o1.<n>` and `o1.<episodes>.<memories>`). What is exact and what is not is
 * in docs/store.md "Exact reads over a real Statewave".
 */

const offsetCursor = /^o1\.(0|[1-9][0-9]{0,15})(?:\.(0|[1-9][0-9]{0,15}))?$/;

function readOffsets(cursor: unknown, read: string, count: 1 | 2): number[] {
  if (cursor === undefined || cursor === null) return count === 1 ? [0] : [0, 0];
  const match = typeof cursor === "string" ? offsetCursor.exec(cursor) : null;
  const numbers = match ? match.slice(1, count + 1).map(Number) : [];
  if (numbers.length !== count || numbers.some((value) => !Number.isSafeInteger(value))) {
    throw new InvalidCursorError(cursor, read);
  }
  return numbers;
}

/**
 * One page of `visible` (the memories the server let this store read, any order) matching
 * `query`, newest first (by `createdAt`; ties keep the later-read first).
 * @throws StoreValidationError, InvalidCursorError as `listMemories` does
 */
export function pageOfVisible(visible: readonly Memory[], query: MemoryQuery): MemoryPage {
  const valid = validateMemoryQuery({ ...query, cursor: null });
  const [offset = 0] = readOffsets(query.cursor, "listMemories", 1);
  const matching = [...visible]
    .reverse()
    .filter((memory) => memoryMatches(memory, valid))
    .sort((a, b) => Date.parse(b.createdAt) - Date.parse(a.createdAt));
  const end = offset + valid.limit;
  return {
    memories: matching.slice(offset, end),
    nextCursor: end < matching.length ? `o1.${end}` : null,
  };
}

/** The episode with this id among `episodes`, or null. */
export function episodeAmong(
  episodes: readonly Episode[],
  subjectId: string,
  episodeId: string,
): Episode | null {
  return (
    episodes.find((episode) => episode.id === episodeId && episode.subjectId === subjectId) ?? null
  );
}

/**
 * `changesSince` over the store's own timeline view, paged by offsets: new episodes and new
 * memories; a later status change of a memory already delivered (a supersede) is not seen here.
 * @param readPage the store's timeline from these offsets (each list its own)
 */
export async function changesFromTimeline(
  cursor: string | null,
  limit: number | undefined,
  readPage: (episodeOffset: number, memoryOffset: number, limit: number) => Promise<Timeline>,
): Promise<ChangePage> {
  const size = validateChangesLimit(limit);
  const [episodeOffset = 0, memoryOffset = 0] = readOffsets(cursor, "changesSince", 2);
  const page = await readPage(episodeOffset, memoryOffset, size + 1);
  const episodes = page.episodes.slice(0, size);
  const memories = page.memories.slice(0, size);
  return {
    changes: [
      ...episodes.map((episode) => ({ type: "episode" as const, episode })),
      ...memories.map((memory) => ({ type: "memory" as const, memory })),
    ],
    cursor: `o1.${episodeOffset + episodes.length}.${memoryOffset + memories.length}`,
    hasMore: page.episodes.length > size || page.memories.length > size,
  };
}
