import type { ContextStore } from "../context/context-store.js";
import { episodeToWire, memoryToWire } from "./wire-mapping.js";

/**
 * What one `GET /v1/timeline` answer may hold, in bytes of JSON: past it the answer is cut and
 * `X-Next-Offset` says where the next page starts. @see docs/server.md "Limits and timeouts"
 */
export const defaultMaxResponseBytes = 16 * 1024 * 1024;

/** The most rows one read of the store asks for; fewer when the rows are large. */
const maxPageRows = 100;
/**
 * The rows of the first read: few, since their size is not known yet (ten 1 MiB episodes are
 * 10 MiB held at once); later reads ask for about as many as still fit.
 */
const firstPageRows = 10;

/** A timeline answer as JSON text, and where the next page starts when it was cut. */
export interface BoundedTimeline {
  body: string;
  /** The `offset` of the next page; undefined when this answer holds everything asked for. */
  nextOffset: number | undefined;
}

/**
 * The timeline of `limit` rows from `offset`, read from the store in pages and written as JSON
 * text as it is read, so no answer is built past `maxBytes` (however large the episodes): the
 * answer stops before the row that would cross it (at least one row is always sent, so paging
 * moves on) and `nextOffset` names the next page. Row `i` is the `i`-th episode and the `i`-th
 * memory, as `limit`/`offset` count both lists.
 */
export async function readBoundedTimeline(
  store: ContextStore,
  subjectId: string,
  options: { limit: number; offset: number; maxBytes: number },
): Promise<BoundedTimeline> {
  const episodes: string[] = [];
  const memories: string[] = [];
  const head = `{"subject_id":${JSON.stringify(subjectId)},"episodes":[`;
  // The text around the rows: head, "],\"memories\":[" and "]}".
  let bytes = Buffer.byteLength(head) + 16;
  let rows = 0;
  let pageRows = firstPageRows;
  let nextOffset: number | undefined;
  while (rows < options.limit) {
    const page = await store.getTimeline(subjectId, {
      limit: Math.min(pageRows, options.limit - rows),
      offset: options.offset + rows,
    });
    const pageLength = Math.max(page.episodes.length, page.memories.length);
    if (pageLength === 0) break;
    let pageBytes = 0;
    for (let index = 0; index < pageLength; index += 1) {
      const episode = page.episodes[index];
      const memory = page.memories[index];
      const episodeText = episode ? JSON.stringify(episodeToWire(episode)) : undefined;
      const memoryText = memory ? JSON.stringify(memoryToWire(memory)) : undefined;
      // +2: the commas between rows.
      const rowBytes =
        (episodeText ? Buffer.byteLength(episodeText) + 1 : 0) +
        (memoryText ? Buffer.byteLength(memoryText) + 1 : 0);
      if (rows > 0 && bytes + rowBytes > options.maxBytes) {
        nextOffset = options.offset + rows;
        break;
      }
      if (episodeText) episodes.push(episodeText);
      if (memoryText) memories.push(memoryText);
      bytes += rowBytes;
      pageBytes += rowBytes;
      rows += 1;
    }
    if (nextOffset !== undefined) break;
    if (pageLength < Math.min(pageRows, options.limit - (rows - pageLength))) break;
    // Ask for about as many rows as still fit: 100 small rows, or a few large ones.
    const perRow = pageBytes / pageLength;
    pageRows = Math.max(
      1,
      Math.min(maxPageRows, Math.floor((options.maxBytes - bytes) / Math.max(perRow, 1)) + 1),
    );
  }
  return {
    body: `${head}${episodes.join(",")}],"memories":[${memories.join(",")}]}`,
    nextOffset,
  };
}
