import { changePageOf } from "../change-feed.js";
import type { ChangePage, Episode, Memory, MemoryPage, Timeline } from "../context-store.js";
import { prefixUpperBound, type ValidMemoryQuery } from "../memory-query.js";
import { type CursorPair, memoryCursor, timelineCursor } from "../store-cursors.js";
import { type EpisodeRow, episodeFromRow, type MemoryRow, memoryFromRow } from "./rows.js";
import type { SqliteHandle } from "./sqlite-handle.js";
import { changeRows } from "./subject-reads.js";

/**
 * The embedded store's exact reads: each one statement over an index whose order is the answer's
 * (or, for targets, the few rows of those targets), so a page costs the same at 10 memories as
 * at 50,000. `EXPLAIN QUERY PLAN` of each is pinned in test/context/embedded/exact-reads.test.ts.
 */

/** Whether the query seeks targets (exact, by prefix, or none): `memories_by_target`'s reads. */
function usesTargetIndex(query: ValidMemoryQuery): boolean {
  return query.targets !== undefined || query.targetPrefix !== undefined || query.untargeted;
}

/**
 * The WHERE clause and parameters of a memory query. With targets (or a prefix) the kind is
 * written `+kind`: a unary plus keeps SQLite from using it to pick `memories_by_kind`.
 */
function memoryFilters(query: ValidMemoryQuery): { where: string; parameters: unknown[] } {
  const byTarget = usesTargetIndex(query);
  const filters = ["tenant_id IS ?", "subject_id = ?"];
  const parameters: unknown[] = [];
  if (query.status !== undefined) {
    filters.push("status = ?");
    parameters.push(query.status);
  }
  if (query.kind !== undefined) {
    filters.push(`${byTarget ? "+" : ""}kind = ?`);
    parameters.push(query.kind);
  }
  if (query.targets !== undefined) {
    filters.push("target IN (SELECT value FROM json_each(?))");
    parameters.push(JSON.stringify(query.targets));
  }
  if (query.untargeted) filters.push("target IS NULL");
  if (query.targetPrefix !== undefined) {
    filters.push("target >= ?");
    parameters.push(query.targetPrefix);
    const upper = prefixUpperBound(query.targetPrefix);
    if (upper !== undefined) {
      filters.push("target < ?");
      parameters.push(upper);
    }
  }
  if (query.beforeSeq !== null) {
    filters.push("seq < ?");
    parameters.push(query.beforeSeq);
  }
  return { where: filters.join(" AND "), parameters };
}

/** The SQL and parameters of one `listMemories` page (one row more than the page, to know if more follow). */
export function memoryPageSql(
  tenantId: string | null,
  subjectId: string,
  query: ValidMemoryQuery,
): { sql: string; parameters: unknown[] } {
  const { where, parameters } = memoryFilters(query);
  // Without statistics SQLite would rather walk the subject in seq order (no sort) than seek the
  // targets and sort their few rows: for a target, that walk is the scan this read exists to avoid.
  const index = usesTargetIndex(query) ? " INDEXED BY memories_by_target" : "";
  return {
    sql: `SELECT * FROM memories${index} WHERE ${where} ORDER BY seq DESC LIMIT ?`,
    parameters: [tenantId, subjectId, ...parameters, query.limit + 1],
  };
}

/** One page of the subject's memories matching the query, newest first. */
export function memoryPageRows(
  handle: SqliteHandle,
  tenantId: string | null,
  subjectId: string,
  query: ValidMemoryQuery,
): MemoryPage {
  if (query.targets !== undefined && query.targets.length === 0) {
    return { memories: [], nextCursor: null };
  }
  const { sql, parameters } = memoryPageSql(tenantId, subjectId, query);
  const rows = handle.statement<MemoryRow>(sql).all(...parameters);
  const page = rows.slice(0, query.limit);
  const last = page[page.length - 1];
  return {
    memories: page.map(memoryFromRow),
    nextCursor: rows.length > query.limit && last ? memoryCursor(last.seq) : null,
  };
}

/** The subject's memory with this id, any status (the id is UNIQUE: one index probe). */
export function memoryById(
  handle: SqliteHandle,
  tenantId: string | null,
  subjectId: string,
  memoryId: string,
): Memory | null {
  const row = handle
    .statement<MemoryRow>(
      `SELECT * FROM memories WHERE id = ? AND tenant_id IS ? AND subject_id = ?`,
    )
    .get(memoryId, tenantId, subjectId);
  return row ? memoryFromRow(row) : null;
}

/** The subject's episode with this id (`episodes_by_id`: one index probe). */
export function episodeById(
  handle: SqliteHandle,
  tenantId: string | null,
  subjectId: string,
  episodeId: string,
): Episode | null {
  const row = handle
    .statement<EpisodeRow>(
      // The unary pluses keep SQLite on episodes_by_id, not walking the subject's episodes.
      `SELECT * FROM episodes WHERE id = ? AND +tenant_id IS ? AND +subject_id = ? ORDER BY seq LIMIT 1`,
    )
    .get(episodeId, tenantId, subjectId);
  return row ? episodeFromRow(row) : null;
}

/** One page of the subject's changes after `after`, from the watch feed's own read. */
export function changePage(
  handle: SqliteHandle,
  tenantId: string | null,
  subjectId: string,
  after: CursorPair,
  limit: number,
): ChangePage {
  return changePageOf(changeRows(handle, tenantId, subjectId, after, limit + 1), after, limit);
}

/** One timeline page after `after` (each list after its own position), oldest first. */
export function timelinePageRows(
  handle: SqliteHandle,
  tenantId: string | null,
  subjectId: string,
  after: CursorPair,
  limit: number,
): Timeline {
  return handle.transaction(() => {
    const episodes = handle
      .statement<EpisodeRow>(
        `SELECT * FROM episodes WHERE tenant_id IS ? AND subject_id = ? AND seq > ? ORDER BY seq LIMIT ?`,
      )
      .all(tenantId, subjectId, after.episode, limit + 1);
    const memories = handle
      .statement<MemoryRow>(
        `SELECT * FROM memories WHERE tenant_id IS ? AND subject_id = ? AND seq > ? ORDER BY seq LIMIT ?`,
      )
      .all(tenantId, subjectId, after.memory, limit + 1);
    return timelinePage(subjectId, after, limit, episodes, memories);
  });
}

/** A timeline page from `limit + 1` rows of each list: the extra row only says more follow. */
function timelinePage(
  subjectId: string,
  after: CursorPair,
  limit: number,
  episodeRows: EpisodeRow[],
  memoryRows: MemoryRow[],
): Timeline {
  const episodes = episodeRows.slice(0, limit);
  const memories = memoryRows.slice(0, limit);
  const more = episodeRows.length > limit || memoryRows.length > limit;
  return {
    subjectId,
    episodes: episodes.map(episodeFromRow),
    memories: memories.map(memoryFromRow),
    episodesHasMore: episodeRows.length > limit,
    memoriesHasMore: memoryRows.length > limit,
    nextCursor: more
      ? timelineCursor({
          episode: episodes[episodes.length - 1]?.seq ?? after.episode,
          memory: memories[memories.length - 1]?.seq ?? after.memory,
        })
      : null,
  };
}
