import type { Episode, JsonObject, Memory, MemoryStatus } from "../context-store.js";

/** An `episodes` row as better-sqlite3 returns it. */
export interface EpisodeRow {
  seq: number;
  id: string;
  tenant_id: string | null;
  subject_id: string;
  source: string;
  type: string;
  payload: string;
  metadata: string;
  provenance: string;
  session_id: string | null;
  created_at: string;
}

/** A `memories` row as better-sqlite3 returns it. */
export interface MemoryRow {
  seq: number;
  id: string;
  tenant_id: string | null;
  subject_id: string;
  kind: string;
  target: string | null;
  content: string;
  summary: string;
  confidence: number;
  valid_from: string;
  valid_to: string | null;
  source_episode_ids: string;
  metadata: string;
  status: string;
  created_at: string;
  updated_at: string;
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

function parseObject(text: string): JsonObject {
  // Written by this store with JSON.stringify of an object, so it parses back to one.
  return JSON.parse(text) as JsonObject;
}

/** The public shape of an episode row. */
export function episodeFromRow(row: EpisodeRow): Episode {
  return {
    id: row.id,
    subjectId: row.subject_id,
    source: row.source,
    type: row.type,
    payload: parseObject(row.payload),
    metadata: parseObject(row.metadata),
    provenance: parseObject(row.provenance),
    sessionId: row.session_id,
    createdAt: row.created_at,
  };
}

/** The public shape of a memory row. */
export function memoryFromRow(row: MemoryRow): Memory {
  return {
    id: row.id,
    subjectId: row.subject_id,
    kind: row.kind,
    content: row.content,
    summary: row.summary,
    confidence: row.confidence,
    validFrom: row.valid_from,
    validTo: row.valid_to,
    sourceEpisodeIds: JSON.parse(row.source_episode_ids) as string[],
    metadata: parseObject(row.metadata),
    status: row.status as MemoryStatus,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

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
