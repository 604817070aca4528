import type { Pool, PoolClient } from "pg";
import { changePageOf } from "../change-feed.js";
import type { ChangePage, Episode, Memory, MemoryPage, Timeline } from "../context-store.js";
import { prefixUpperBound, type ValidMemoryQuery } from "../memory-query.js";
import { type CursorPair, memoryCursor, timelineCursor } from "../store-cursors.js";
import { queryRows } from "./connection.js";
import {
  type EpisodeRow,
  episodeColumns,
  episodeFromRow,
  type MemoryRow,
  memoryColumns,
  memoryFromRow,
} from "./rows.js";
import { changeRows } from "./subject-reads.js";

/**
 * The Postgres store's exact reads, each one statement over an index (schema migration 3; the
 * plans are in docs/postgres.md): a page costs the same at 10 memories as at 50,000.
 */

/** The SQL and values of one `listMemories` page (one row more than the page, to know if more follow). */
export function memoryPageSql(
  tenant: string,
  subjectId: string,
  query: ValidMemoryQuery,
): { text: string; values: unknown[] } {
  const values: unknown[] = [tenant, subjectId];
  const filters = ["m.tenant_key = $1", "m.subject_id = $2"];
  const add = (sql: (placeholder: string) => string, value: unknown) => {
    values.push(value);
    filters.push(sql(`$${values.length}`));
  };
  if (query.status !== undefined) add((p) => `m.status = ${p}`, query.status);
  if (query.kind !== undefined) add((p) => `m.kind = ${p}`, query.kind);
  // COLLATE "C": the order of memories_by_target, code point order whatever the database's.
  if (query.targets !== undefined) {
    add((p) => `(m.target COLLATE "C") = ANY(${p}::text[])`, query.targets);
  }
  if (query.untargeted) filters.push(`(m.target COLLATE "C") IS NULL`);
  if (query.targetPrefix !== undefined) {
    add((p) => `(m.target COLLATE "C") >= ${p}`, query.targetPrefix);
    const upper = prefixUpperBound(query.targetPrefix);
    if (upper !== undefined) add((p) => `(m.target COLLATE "C") < ${p}`, upper);
  }
  if (query.beforeSeq !== null) add((p) => `m.mseq < ${p}`, query.beforeSeq);
  values.push(query.limit + 1);
  return {
    text: `SELECT ${memoryColumns} FROM memories m WHERE ${filters.join(" AND ")} ORDER BY m.mseq DESC LIMIT $${values.length}`,
    values,
  };
}

/** One page of the subject's memories matching the query, newest first. */
export async function memoryPageRows(
  pool: Pool,
  tenant: string,
  subjectId: string,
  query: ValidMemoryQuery,
): Promise<MemoryPage> {
  if (query.targets !== undefined && query.targets.length === 0) {
    return { memories: [], nextCursor: null };
  }
  const rows = await queryRows<MemoryRow>(pool, memoryPageSql(tenant, subjectId, query));
  const page = rows.slice(0, query.limit);
  const last = page[page.length - 1];
  return {
    memories: page.map(memoryFromRow),
    nextCursor: rows.length > query.limit && last ? memoryCursor(Number(last.mseq)) : null,
  };
}

/** The subject's memory with this id, any status (`id` is UNIQUE: one index probe). */
export async function memoryById(
  pool: Pool,
  tenant: string,
  subjectId: string,
  memoryId: string,
): Promise<Memory | null> {
  const [row] = await queryRows<MemoryRow>(pool, {
    name: "shared-ctx-memory-by-id",
    text: `SELECT ${memoryColumns} FROM memories m WHERE m.id = $1 AND m.tenant_key = $2 AND m.subject_id = $3`,
    values: [memoryId, tenant, subjectId],
  });
  return row ? memoryFromRow(row) : null;
}

/** The subject's episode with this id (`episodes_by_id`: one index probe). */
export async function episodeById(
  pool: Pool,
  tenant: string,
  subjectId: string,
  episodeId: string,
): Promise<Episode | null> {
  const [row] = await queryRows<EpisodeRow>(pool, {
    name: "shared-ctx-episode-by-id",
    text: `SELECT ${episodeColumns} FROM episodes WHERE id = $1 AND tenant_key = $2 AND subject_id = $3 ORDER BY seq LIMIT 1`,
    values: [episodeId, tenant, subjectId],
  });
  return row ? episodeFromRow(row) : null;
}

/** One page of the subject's changes after `after`, from the watch feed's own read. */
export async function changePage(
  pool: Pool,
  tenant: string,
  subjectId: string,
  after: CursorPair,
  limit: number,
): Promise<ChangePage> {
  return changePageOf(await changeRows(pool, tenant, subjectId, after, limit + 1), after, limit);
}

/** One timeline page after `after` (each list after its own position), oldest first. */
export async function timelinePageRows(
  client: PoolClient,
  tenant: string,
  subjectId: string,
  after: CursorPair,
  limit: number,
): Promise<Timeline> {
  const episodeRows = await queryRows<EpisodeRow>(client, {
    name: "shared-ctx-timeline-episodes-after",
    text: `SELECT ${episodeColumns} FROM episodes WHERE tenant_key = $1 AND subject_id = $2 AND seq > $3 ORDER BY seq LIMIT $4`,
    values: [tenant, subjectId, after.episode, limit + 1],
  });
  const memoryRows = await queryRows<MemoryRow>(client, {
    name: "shared-ctx-timeline-memories-after",
    text: `SELECT ${memoryColumns} FROM memories m WHERE m.tenant_key = $1 AND m.subject_id = $2 AND m.mseq > $3 ORDER BY m.mseq LIMIT $4`,
    values: [tenant, subjectId, after.memory, limit + 1],
  });
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
          episode: Number(episodes.at(-1)?.seq ?? after.episode),
          memory: Number(memories.at(-1)?.mseq ?? after.memory),
        })
      : null,
  };
}
