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
