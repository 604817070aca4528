import type { FeedChange, WatchCursor } from "../change-feed.js";
import type {
  DeleteSubjectResult,
  ListSubjectsResult,
  Memory,
  Timeline,
} from "../context-store.js";
import { timelineCursor } from "../store-cursors.js";
import { type EpisodeRow, episodeFromRow, type MemoryRow, memoryFromRow } from "./rows.js";
import type { SqliteHandle } from "./sqlite-handle.js";

/**
 * The embedded store's reads and deletes of one subject (or one tenant's subjects): one SQL
 * statement or one transaction each, every query filtered on the tenant (`tenant_id IS ?`, so the
 * default tenant `null` only ever matches its own rows).
 */

/** Active memories of the subject, newest first, filtered by kind and a substring of the content. */
export function searchRows(
  handle: SqliteHandle,
  tenantId: string | null,
  subjectId: string,
  search: { limit: number; kind: string | undefined; q: string | undefined },
): Memory[] {
  const filters = ["tenant_id IS ?", "subject_id = ?", "status = 'active'"];
  const parameters: unknown[] = [tenantId, subjectId];
  if (search.kind !== undefined) {
    filters.push("kind = ?");
    parameters.push(search.kind);
  }
  if (search.q !== undefined) {
    // instr, not LIKE: '%' and '_' in q are literal text here. lower() folds ASCII only.
    filters.push("instr(lower(content), lower(?)) > 0");
    parameters.push(search.q);
  }
  return handle
    .statement<MemoryRow>(
      `SELECT * FROM memories WHERE ${filters.join(" AND ")} ORDER BY seq DESC LIMIT ?`,
    )
    .all(...parameters, search.limit)
    .map(memoryFromRow);
}

/**
 * One page of the subject's episodes and memories from `offset`, oldest first, from one snapshot;
 * with `newestFirst`, `offset` counts from the newest end (Statewave >= 1.5), rows still oldest
 * first. OFFSET walks what it skips: kept for the wire's `offset`, while a cursor reads
 * `timelinePageRows` (exact-reads.ts). Its `nextCursor` continues after this page's rows (after
 * the subject's newest row, for a list the offset ran past); a newest-first page has none.
 */
export function timelineRows(
  handle: SqliteHandle,
  tenantId: string | null,
  subjectId: string,
  page: { limit: number; offset: number; newestFirst: boolean },
): Timeline {
  const { limit, offset } = page;
  const order = page.newestFirst ? "DESC" : "";
  return handle.transaction(() => {
    const episodes = handle
      .statement<EpisodeRow>(
        `SELECT * FROM episodes WHERE tenant_id IS ? AND subject_id = ? ORDER BY seq ${order} LIMIT ? OFFSET ?`,
      )
      .all(tenantId, subjectId, limit + 1, offset);
    const memories = handle
      .statement<MemoryRow>(
        `SELECT * FROM memories WHERE tenant_id IS ? AND subject_id = ? ORDER BY seq ${order} LIMIT ? OFFSET ?`,
      )
      .all(tenantId, subjectId, limit + 1, offset);
    const kept = { episodes: episodes.slice(0, limit), memories: memories.slice(0, limit) };
    if (page.newestFirst) {
      kept.episodes.reverse();
      kept.memories.reverse();
    }
    const more = episodes.length > limit || memories.length > limit;
    const newest = (table: "episodes" | "memories") =>
      handle
        .statement<{ seq: number | null }>(
          `SELECT max(seq) AS seq FROM ${table} WHERE tenant_id IS ? AND subject_id = ?`,
        )
        .get(tenantId, subjectId)?.seq ?? 0;
    const cursor = () =>
      timelineCursor({
        episode: kept.episodes.at(-1)?.seq ?? newest("episodes"),
        memory: kept.memories.at(-1)?.seq ?? newest("memories"),
      });
    return {
      subjectId,
      episodes: kept.episodes.map(episodeFromRow),
      memories: kept.memories.map(memoryFromRow),
      episodesHasMore: episodes.length > limit,
      memoriesHasMore: memories.length > limit,
      // With limit 0 (or from the newest end) no cursor says where the page stands: unknown.
      nextCursor: !more ? null : limit === 0 || page.newestFirst ? undefined : cursor(),
    };
  });
}

/** One page of the tenant's subjects (any with an episode or a memory), by id, with the total. */
export function subjectRows(
  handle: SqliteHandle,
  tenantId: string | null,
  page: { limit: number; offset: number },
): ListSubjectsResult {
  const subjectsSql = `SELECT DISTINCT subject_id FROM episodes WHERE tenant_id IS @tenant
    UNION SELECT DISTINCT subject_id FROM memories WHERE tenant_id IS @tenant`;
  return handle.transaction(() => {
    const total =
      handle
        .statement<{ total: number }>(`SELECT count(*) AS total FROM (${subjectsSql})`)
        .get({ tenant: tenantId })?.total ?? 0;
    const rows = handle
      .statement<{ subject_id: string; episode_count: number; memory_count: number }>(
        `SELECT s.subject_id,
           (SELECT count(*) FROM episodes e WHERE e.tenant_id IS @tenant AND e.subject_id = s.subject_id) AS episode_count,
           (SELECT count(*) FROM memories m WHERE m.tenant_id IS @tenant AND m.subject_id = s.subject_id) AS memory_count
         FROM (${subjectsSql}) AS s ORDER BY s.subject_id LIMIT @limit OFFSET @offset`,
      )
      .all({ tenant: tenantId, limit: page.limit, offset: page.offset });
    return {
      subjects: rows.map((row) => ({
        subjectId: row.subject_id,
        episodeCount: row.episode_count,
        memoryCount: row.memory_count,
      })),
      total,
    };
  });
}

/** Deletes the subject's episodes, memories and their index rows under the write lock. */
export function deleteSubjectRows(
  handle: SqliteHandle,
  tenantId: string | null,
  subjectId: string,
): DeleteSubjectResult {
  return handle.immediate(() => {
    handle
      .statement(
        `DELETE FROM memory_fts WHERE rowid IN (SELECT seq FROM memories WHERE tenant_id IS ? AND subject_id = ?)`,
      )
      .run(tenantId, subjectId);
    const memories = handle
      .statement(`DELETE FROM memories WHERE tenant_id IS ? AND subject_id = ?`)
      .run(tenantId, subjectId).changes;
    const episodes = handle
      .statement(`DELETE FROM episodes WHERE tenant_id IS ? AND subject_id = ?`)
      .run(tenantId, subjectId).changes;
    return { subjectId, episodesDeleted: episodes, memoriesDeleted: memories };
  });
}

/** Where a new watcher of the subject starts: its newest episode, the newest memory change. */
export function watchCursors(
  handle: SqliteHandle,
  tenantId: string | null,
  subjectId: string,
): WatchCursor {
  return handle.transaction(() => ({
    // The subject's own newest episode: any later one gets a higher seq (max + 1).
    episode:
      handle
        .statement<{ seq: number | null }>(
          `SELECT max(seq) AS seq FROM episodes WHERE tenant_id IS ? AND subject_id = ?`,
        )
        .get(tenantId, subjectId)?.seq ?? 0,
    memory:
      handle
        .statement<{ value: number }>(`SELECT value FROM counters WHERE name = 'memory_change'`)
        .get()?.value ?? 0,
  }));
}

/** The subject's changes after the cursors (see `ChangeSource.changesAfter` in watch-hub.ts). */
export function changeRows(
  handle: SqliteHandle,
  tenantId: string | null,
  subjectId: string,
  after: WatchCursor,
  limit: number,
): FeedChange[] {
  return handle.transaction(() => {
    const changes: FeedChange[] = [];
    for (const row of handle
      .statement<EpisodeRow>(
        `SELECT * FROM episodes WHERE tenant_id IS ? AND subject_id = ? AND seq > ? ORDER BY seq LIMIT ?`,
      )
      .all(tenantId, subjectId, after.episode, limit)) {
      changes.push({ change: { type: "episode", episode: episodeFromRow(row) }, episode: row.seq });
    }
    for (const row of handle
      .statement<MemoryRow>(
        `SELECT * FROM memories WHERE tenant_id IS ? AND subject_id = ? AND change_seq > ? ORDER BY change_seq LIMIT ?`,
      )
      .all(tenantId, subjectId, after.memory, limit)) {
      changes.push({
        change: { type: "memory", memory: memoryFromRow(row) },
        memory: row.change_seq,
      });
    }
    return changes;
  });
}
