import type { Pool, PoolClient } from "pg";
import type { FeedChange, WatchCursor } from "../change-feed.js";
import type { CompileJobColumns } from "../compile-jobs.js";
import type {
  DeleteSubjectResult,
  ListSubjectsResult,
  Memory,
  Timeline,
} from "../context-store.js";
import { timelineCursor } from "../store-cursors.js";
import { queryRows } from "./connection.js";
import {
  type EpisodeRow,
  episodeColumns,
  episodeFromRow,
  type MemoryRow,
  memoryColumns,
  memoryFromRow,
} from "./rows.js";

/**
 * The Postgres store's reads and deletes of one subject (or one tenant's subjects), each in the
 * caller's pool or transaction; every query filters on the tenant's key.
 */

/** Active memories of the subject, newest first, filtered by kind and a substring of the content. */
export async function searchRows(
  pool: Pool,
  tenant: string,
  subjectId: string,
  search: { limit: number; kind: string | undefined; q: string | undefined },
): Promise<Memory[]> {
  const filters = ["m.tenant_key = $1", "m.subject_id = $2", "m.status = 'active'"];
  const values: unknown[] = [tenant, subjectId];
  if (search.kind !== undefined) {
    values.push(search.kind);
    filters.push(`m.kind = $${values.length}`);
  }
  if (search.q !== undefined) {
    // strpos, not LIKE: '%' and '_' in q are literal text. lower() folds as SQLite's does
    // for ASCII (and further for other letters, which the embedded store leaves as they are).
    values.push(search.q);
    filters.push(`strpos(lower(m.content), lower($${values.length})) > 0`);
  }
  values.push(search.limit);
  const rows = await queryRows<MemoryRow>(pool, {
    text: `SELECT ${memoryColumns} FROM memories m WHERE ${filters.join(" AND ")} ORDER BY m.mseq DESC LIMIT $${values.length}`,
    values,
  });
  return rows.map(memoryFromRow);
}

/**
 * One page of the subject's episodes and memories from `offset`, oldest first (in the caller's
 * snapshot). OFFSET walks what it skips: kept for the wire's `offset`, while a cursor reads
 * `timelinePageRows` (exact-reads.ts). Its `nextCursor` continues after this page's rows (after
 * the subject's newest row, for a list the offset ran past).
 */
export async function timelineRows(
  client: PoolClient,
  tenant: string,
  subjectId: string,
  page: { limit: number; offset: number; newestFirst: boolean },
): Promise<Timeline> {
  const order = page.newestFirst ? "DESC" : "";
  const episodes = await queryRows<EpisodeRow>(client, {
    name: `shared-ctx-timeline-episodes${order}`,
    text: `SELECT ${episodeColumns} FROM episodes WHERE tenant_key = $1 AND subject_id = $2 ORDER BY seq ${order} LIMIT $3 OFFSET $4`,
    values: [tenant, subjectId, page.limit + 1, page.offset],
  });
  const memories = await queryRows<MemoryRow>(client, {
    name: `shared-ctx-timeline-memories${order}`,
    text: `SELECT ${memoryColumns} FROM memories m WHERE m.tenant_key = $1 AND m.subject_id = $2 ORDER BY m.mseq ${order} LIMIT $3 OFFSET $4`,
    values: [tenant, subjectId, page.limit + 1, page.offset],
  });
  const more = episodes.length > page.limit || memories.length > page.limit;
  const kept = { episodes: episodes.slice(0, page.limit), memories: memories.slice(0, page.limit) };
  if (page.newestFirst) {
    kept.episodes.reverse();
    kept.memories.reverse();
  }
  return {
    subjectId,
    episodes: kept.episodes.map(episodeFromRow),
    memories: kept.memories.map(memoryFromRow),
    episodesHasMore: episodes.length > page.limit,
    memoriesHasMore: memories.length > page.limit,
    // With limit 0 (or from the newest end) no cursor says where the page stands: unknown.
    nextCursor: !more
      ? null
      : page.limit === 0 || page.newestFirst
        ? undefined
        : await offsetCursor(client, tenant, subjectId, kept),
  };
}

/** Where the page after an offset page starts: its last rows, or the subject's newest row. */
async function offsetCursor(
  client: PoolClient,
  tenant: string,
  subjectId: string,
  kept: { episodes: EpisodeRow[]; memories: MemoryRow[] },
): Promise<string> {
  const lastEpisode = kept.episodes.at(-1)?.seq;
  const lastMemory = kept.memories.at(-1)?.mseq;
  if (lastEpisode !== undefined && lastMemory !== undefined) {
    return timelineCursor({ episode: Number(lastEpisode), memory: Number(lastMemory) });
  }
  const [newest] = await queryRows<{ episode: string | null; memory: string | null }>(client, {
    name: "shared-ctx-timeline-newest",
    text: `SELECT (SELECT max(seq) FROM episodes WHERE tenant_key = $1 AND subject_id = $2) AS episode,
                  (SELECT max(mseq) FROM memories WHERE tenant_key = $1 AND subject_id = $2) AS memory`,
    values: [tenant, subjectId],
  });
  return timelineCursor({
    episode: Number(lastEpisode ?? newest?.episode ?? 0),
    memory: Number(lastMemory ?? newest?.memory ?? 0),
  });
}

/** One page of the tenant's subjects (any with an episode or a memory), by id, with the total. */
export async function subjectRows(
  client: PoolClient,
  tenant: string,
  page: { limit: number; offset: number },
): Promise<ListSubjectsResult> {
  const subjectsSql = `SELECT s.subject_id, s.episode_count, COALESCE(c.memory_count, 0) AS memory_count
    FROM subjects s LEFT JOIN compile_state c ON c.tenant_key = s.tenant_key AND c.subject_id = s.subject_id
    WHERE s.tenant_key = $1 AND (s.episode_count > 0 OR COALESCE(c.memory_count, 0) > 0)`;
  const [count] = await queryRows<{ total: string }>(client, {
    text: `SELECT count(*) AS total FROM (${subjectsSql}) AS s`,
    values: [tenant],
  });
  const rows = await queryRows<{ subject_id: string; episode_count: string; memory_count: string }>(
    client,
    {
      // COLLATE "C": byte order, as SQLite's (and JavaScript's default sort for ASCII).
      text: `${subjectsSql} ORDER BY s.subject_id COLLATE "C" LIMIT $2 OFFSET $3`,
      values: [tenant, page.limit, page.offset],
    },
  );
  return {
    subjects: rows.map((row) => ({
      subjectId: row.subject_id,
      episodeCount: Number(row.episode_count),
      memoryCount: Number(row.memory_count),
    })),
    total: Number(count?.total ?? 0),
  };
}

/** Deletes the subject's episodes and memories (in the caller's transaction). */
export async function deleteSubjectRows(
  client: PoolClient,
  tenant: string,
  subjectId: string,
): Promise<DeleteSubjectResult> {
  const subject = [tenant, subjectId];
  // Both locks, in the order inserts (subjects) and compiles (compile_state) take them alone.
  // The sequences stay: episodes written later get new, higher seqs, so watchers never
  // mistake a new episode for one they delivered.
  await client.query(
    `SELECT 1 FROM subjects WHERE tenant_key = $1 AND subject_id = $2 FOR UPDATE`,
    subject,
  );
  await client.query(
    `SELECT 1 FROM compile_state WHERE tenant_key = $1 AND subject_id = $2 FOR UPDATE`,
    subject,
  );
  const memories = await client.query(
    `DELETE FROM memories WHERE tenant_key = $1 AND subject_id = $2`,
    subject,
  );
  const episodes = await client.query(
    `DELETE FROM episodes WHERE tenant_key = $1 AND subject_id = $2`,
    subject,
  );
  await client.query(
    `UPDATE subjects SET episode_count = 0 WHERE tenant_key = $1 AND subject_id = $2`,
    subject,
  );
  // Compiled up to the last seq handed out: nothing deleted is compiled again.
  await client.query(`DELETE FROM term_stats WHERE tenant_key = $1 AND subject_id = $2`, subject);
  await client.query(
    `UPDATE compile_state c SET memory_count = 0, active_count = 0, active_tokens = 0, compiled_seq = GREATEST(c.compiled_seq, s.last_seq)
     FROM subjects s WHERE c.tenant_key = $1 AND c.subject_id = $2 AND s.tenant_key = $1 AND s.subject_id = $2`,
    subject,
  );
  return {
    subjectId,
    episodesDeleted: episodes.rowCount ?? 0,
    memoriesDeleted: memories.rowCount ?? 0,
  };
}

/** See `PostgresChangeSource.cursors` (watch-hub.ts): ISO times compare as text. */
export async function watchCursors(
  pool: Pool,
  tenant: string,
  subjectId: string,
  since: string,
): Promise<WatchCursor> {
  const [row] = await queryRows<{ episode: string | null; memory: string | null }>(pool, {
    name: "shared-ctx-watch-cursors-since",
    text: `SELECT COALESCE(
                    (SELECT MIN(seq) - 1 FROM episodes WHERE tenant_key = $1 AND subject_id = $2 AND created_at >= $3),
                    (SELECT last_seq FROM subjects WHERE tenant_key = $1 AND subject_id = $2)) AS episode,
                  COALESCE(
                    (SELECT MIN(change_seq) - 1 FROM memories WHERE tenant_key = $1 AND subject_id = $2 AND updated_at >= $3),
                    (SELECT memory_change FROM compile_state WHERE tenant_key = $1 AND subject_id = $2)) AS memory`,
    values: [tenant, subjectId, since],
  });
  return { episode: Number(row?.episode ?? 0), memory: Number(row?.memory ?? 0) };
}

/** The subject's changes after the cursors (see `PostgresChangeSource.changesAfter`). */
export async function changeRows(
  pool: Pool,
  tenant: string,
  subjectId: string,
  after: WatchCursor,
  limit: number,
): Promise<FeedChange[]> {
  const episodes = await queryRows<EpisodeRow>(pool, {
    name: "shared-ctx-watch-episodes",
    text: `SELECT ${episodeColumns} FROM episodes WHERE tenant_key = $1 AND subject_id = $2 AND seq > $3 ORDER BY seq LIMIT $4`,
    values: [tenant, subjectId, after.episode, limit],
  });
  const memories = await queryRows<MemoryRow>(pool, {
    name: "shared-ctx-watch-memories",
    text: `SELECT ${memoryColumns} FROM memories m WHERE m.tenant_key = $1 AND m.subject_id = $2 AND m.change_seq > $3 ORDER BY m.change_seq LIMIT $4`,
    values: [tenant, subjectId, after.memory, limit],
  });
  return [
    ...episodes.map((row) => ({
      change: { type: "episode" as const, episode: episodeFromRow(row) },
      episode: Number(row.seq),
    })),
    ...memories.map((row) => ({
      change: { type: "memory" as const, memory: memoryFromRow(row) },
      memory: Number(row.change_seq),
    })),
  ];
}

/** The tenant's compile job row, or undefined (an id that cannot be one finds none). */
export async function compileJobRow(
  pool: Pool,
  tenant: string,
  jobId: unknown,
): Promise<CompileJobColumns | undefined> {
  if (typeof jobId !== "string" || jobId.includes("\u0000")) return undefined;
  const [row] = await queryRows<CompileJobColumns>(pool, {
    text: `SELECT job_id, subject_id, status, memories_created, memory_ids, error FROM compile_jobs WHERE job_id = $1 AND tenant_key = $2`,
    values: [jobId, tenant],
  });
  return row;
}
