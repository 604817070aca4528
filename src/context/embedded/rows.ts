import type { Memory, MemoryStatus } from "../context-store.js";
import { type EpisodeColumns, type MemoryColumns, parseObject } from "../row-mapping.js";

/** An `episodes` row as better-sqlite3 returns it. */
export interface EpisodeRow extends EpisodeColumns {
  seq: number;
  tenant_id: string | null;
}

/** A `memories` row as better-sqlite3 returns it. */
export interface MemoryRow extends MemoryColumns {
  seq: number;
  tenant_id: string | null;
  target: string | null;
  change_seq: number;
}

/** A `compile_jobs` row. */
export interface CompileJobRow {
  job_id: string;
  tenant_id: string | null;
  subject_id: string;
  status: string;
  memories_created: number | null;
  memory_ids: string | null;
  error: string | null;
}

export { episodeFromRow, memoryFromRow } from "../row-mapping.js";

/**
 * The columns {@link memoryFromRawRow} reads, in its order: a statement in better-sqlite3's raw
 * mode returns arrays, which cost about half as much to build as row objects (the context's
 * candidate rows are most of what a `/v1/context` costs).
 */
export const memoryRawColumns =
  "seq, id, subject_id, kind, content, summary, confidence, valid_from, valid_to, source_episode_ids, metadata, status, created_at, updated_at";

/** A raw row of {@link memoryRawColumns}. */
export type MemoryRawRow = [
  seq: number,
  id: string,
  subjectId: string,
  kind: string,
  content: string,
  summary: string,
  confidence: number,
  validFrom: string,
  validTo: string | null,
  sourceEpisodeIds: string,
  metadata: string,
  status: string,
  createdAt: string,
  updatedAt: string,
];

/** The public shape of a raw memory row (see {@link memoryRawColumns}). */
export function memoryFromRawRow(row: MemoryRawRow): Memory {
  return {
    id: row[1],
    subjectId: row[2],
    kind: row[3],
    content: row[4],
    summary: row[5],
    confidence: row[6],
    validFrom: row[7],
    validTo: row[8],
    sourceEpisodeIds: JSON.parse(row[9]) as string[],
    metadata: parseObject(row[10]),
    status: row[11] as MemoryStatus,
    createdAt: row[12],
    updatedAt: row[13],
  };
}
