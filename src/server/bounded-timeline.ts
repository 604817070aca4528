import type { ContextStore, Timeline, TimelineOptions } from "../context/context-store.js";
import { episodeToWire, memoryToWire } from "./wire-mapping.js";

/**
 * What one `GET /v1/timeline` answer may hold, in bytes of JSON: past it the answer is cut and
 * `X-Next-Offset` / `X-Next-Cursor` say where the next page starts. @see docs/server.md "Limits and timeouts"
 */
export const defaultMaxResponseBytes = 16 * 1024 * 1024;

/** The most rows one read of the store asks for; fewer when the rows are large. */
const maxPageRows = 100;
/**
 * The rows of the first read: few, since their size is not known yet (ten 1 MiB episodes are
 * 10 MiB held at once); later reads ask for about as many as still fit.
 */
const firstPageRows = 10;

/** What a timeline request asks for (the wire's `limit`, `offset`, `cursor`, `newest_first`). */
export interface TimelineRequest {
  limit: number;
  offset: number;
  cursor: string | null;
  newestFirst: boolean;
  maxBytes: number;
}

/** A timeline answer's rows as JSON texts, and where the next page starts. */
export interface BoundedTimeline {
  /** The rows' JSON texts, oldest first. */
  episodes: string[];
  memories: string[];
  /** The `offset` of the next page; undefined when this answer holds everything asked for. */
  nextOffset: number | undefined;
  /** The `cursor` of the next page: null when nothing follows, undefined when unknown (newest first). */
  nextCursor: string | null | undefined;
  episodesHasMore: boolean;
  memoriesHasMore: boolean;
}

/** The JSON text of a row pair: the i-th episode and the i-th memory of a page (either may be missing). */
function rowTexts(page: Timeline, episodeIndex: number, memoryIndex: number) {
  const episode = page.episodes[episodeIndex];
  const memory = page.memories[memoryIndex];
  const episodeText = episode ? JSON.stringify(episodeToWire(episode)) : undefined;
  const memoryText = memory ? JSON.stringify(memoryToWire(memory)) : undefined;
  // +1 each: the comma between rows.
  const bytes =
    (episodeText ? Buffer.byteLength(episodeText) + 1 : 0) +
    (memoryText ? Buffer.byteLength(memoryText) + 1 : 0);
  return { episodeText, memoryText, bytes };
}

/** Rows to ask for next: about as many as still fit, 1..100. */
function nextPageRows(maxBytes: number, bytes: number, pageBytes: number, pageLength: number) {
  const perRow = pageBytes / pageLength;
  return Math.max(
    1,
    Math.min(maxPageRows, Math.floor((maxBytes - bytes) / Math.max(perRow, 1)) + 1),
  );
}

/**
 * The timeline of `limit` rows from `offset` or `cursor`, read from the store in pages (each after
 * the last by cursor: no page walks what came before) and kept as JSON text as it is read, so no
 * answer is built past `maxBytes` (however large the episodes): the answer stops before the row that
 * would cross it (at least one row is always sent, so paging moves on). Row `i` is the `i`-th
 * episode and the `i`-th memory, as `limit`/`offset` count both lists.
 */
export async function readBoundedTimeline(
  store: ContextStore,
  subjectId: string,
  request: TimelineRequest,
): Promise<BoundedTimeline> {
  if (request.newestFirst) return readNewestFirst(store, subjectId, request);
  const answer: BoundedTimeline = {
    episodes: [],
    memories: [],
    nextOffset: undefined,
    nextCursor: null,
    episodesHasMore: false,
    memoriesHasMore: false,
  };
  // The text around the rows: head, "],\"memories\":[" and the tail's fields.
  let bytes = Buffer.byteLength(subjectId) + 200;
  let rows = 0;
  let pageRows = firstPageRows;
  // Both, when both were sent: the store refuses a cursor with an offset (422 on `offset`).
  let start: TimelineOptions =
    request.cursor !== null
      ? { cursor: request.cursor, ...(request.offset > 0 ? { offset: request.offset } : {}) }
      : { offset: request.offset };
  while (rows < request.limit) {
    const limit = Math.min(pageRows, request.limit - rows);
    const page = await store.getTimeline(subjectId, { ...start, limit });
    const pageLength = Math.max(page.episodes.length, page.memories.length);
    let pageBytes = 0;
    for (let index = 0; index < pageLength; index += 1) {
      const row = rowTexts(page, index, index);
      if (rows > 0 && bytes + row.bytes > request.maxBytes) {
        await cutAt(store, subjectId, answer, { start, index, page });
        if (request.cursor === null) answer.nextOffset = request.offset + rows;
        return answer;
      }
      if (row.episodeText) answer.episodes.push(row.episodeText);
      if (row.memoryText) answer.memories.push(row.memoryText);
      bytes += row.bytes;
      pageBytes += row.bytes;
      rows += 1;
    }
    answer.nextCursor = page.nextCursor ?? null;
    answer.episodesHasMore = page.episodesHasMore ?? false;
    answer.memoriesHasMore = page.memoriesHasMore ?? false;
    if (page.nextCursor === null || page.nextCursor === undefined || pageLength < limit) break;
    start = { cursor: page.nextCursor };
    pageRows = nextPageRows(request.maxBytes, bytes, pageBytes, pageLength);
  }
  return answer;
}

/**
 * Where the answer goes on when the byte cap cut `page` before row `index`: the store's cursor
 * after exactly `index` rows of the page (one small read, only when an answer is cut).
 */
async function cutAt(
  store: ContextStore,
  subjectId: string,
  answer: BoundedTimeline,
  cut: { start: TimelineOptions; index: number; page: Timeline },
): Promise<void> {
  if (cut.index === 0) {
    answer.nextCursor = cut.start.cursor ?? null;
    answer.episodesHasMore = cut.page.episodes.length > 0;
    answer.memoriesHasMore = cut.page.memories.length > 0;
    return;
  }
  const head = await store.getTimeline(subjectId, { ...cut.start, limit: cut.index });
  answer.nextCursor = head.nextCursor ?? null;
  answer.episodesHasMore = head.episodesHasMore ?? true;
  answer.memoriesHasMore = head.memoriesHasMore ?? true;
}

/**
 * Statewave >= 1.5's `newest_first`: the `limit` newest rows after skipping `offset` of the
 * newest, oldest first in the answer. Read from the newest end in pages; a cut keeps the newest
 * rows that fit, and `nextOffset` skips them.
 */
async function readNewestFirst(
  store: ContextStore,
  subjectId: string,
  request: TimelineRequest,
): Promise<BoundedTimeline> {
  const answer: BoundedTimeline = {
    episodes: [],
    memories: [],
    nextOffset: undefined,
    nextCursor: undefined,
    episodesHasMore: false,
    memoriesHasMore: false,
  };
  let bytes = Buffer.byteLength(subjectId) + 200;
  let rows = 0;
  let pageRows = firstPageRows;
  reading: while (rows < request.limit) {
    const limit = Math.min(pageRows, request.limit - rows);
    const offset = request.offset + rows;
    // A cursor is passed on for the store to refuse (it pages forward only): 422 on `newestFirst`.
    const cursor = rows === 0 && request.cursor !== null ? { cursor: request.cursor } : {};
    const page = await store.getTimeline(subjectId, {
      newestFirst: true,
      offset,
      limit,
      ...cursor,
    });
    const pageLength = Math.max(page.episodes.length, page.memories.length);
    let pageBytes = 0;
    for (let index = 0; index < pageLength; index += 1) {
      // The page is oldest first: its newest rows are at the end of each list.
      const row = rowTexts(
        page,
        page.episodes.length - 1 - index,
        page.memories.length - 1 - index,
      );
      if (rows > 0 && bytes + row.bytes > request.maxBytes) {
        answer.nextOffset = request.offset + rows;
        answer.episodesHasMore = page.episodes.length > index || (page.episodesHasMore ?? false);
        answer.memoriesHasMore = page.memories.length > index || (page.memoriesHasMore ?? false);
        break reading;
      }
      if (row.episodeText) answer.episodes.push(row.episodeText);
      if (row.memoryText) answer.memories.push(row.memoryText);
      bytes += row.bytes;
      pageBytes += row.bytes;
      rows += 1;
    }
    answer.episodesHasMore = page.episodesHasMore ?? false;
    answer.memoriesHasMore = page.memoriesHasMore ?? false;
    if (pageLength < limit || !(answer.episodesHasMore || answer.memoriesHasMore)) break;
    pageRows = nextPageRows(request.maxBytes, bytes, pageBytes, pageLength);
  }
  answer.episodes.reverse();
  answer.memories.reverse();
  return answer;
}

/**
 * The answer as JSON text: Statewave's `{subject_id, episodes, memories}`, plus (`paged`: the
 * request named `limit`, `offset`, `cursor` or `newest_first`) Statewave >= 1.5's
 * `episodes_has_more` / `memories_has_more` and shared-ctx's `next_cursor`. A bare request gets
 * v0.7.1's shape, field for field.
 */
export function timelineBody(subjectId: string, answer: BoundedTimeline, paged: boolean): string {
  const head = `{"subject_id":${JSON.stringify(subjectId)},"episodes":[${answer.episodes.join(",")}],"memories":[${answer.memories.join(",")}]`;
  if (!paged) return `${head}}`;
  const cursor =
    answer.nextCursor === undefined ? "" : `,"next_cursor":${JSON.stringify(answer.nextCursor)}`;
  return `${head},"episodes_has_more":${answer.episodesHasMore},"memories_has_more":${answer.memoriesHasMore}${cursor}}`;
}
