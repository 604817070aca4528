import type { Episode, JsonObject, Memory, MemoryStatus } from "./context-store.js";

/**
 * Rows to the public shapes, for every SQL store (SQLite, Postgres): the columns they share are
 * the same, text JSON included; what differs (sequence types, tenant columns) is not read here.
 */

/** The episode columns every SQL store keeps. */
export interface EpisodeColumns {
  id: string;
  subject_id: string;
  source: string;
  type: string;
  payload: string;
  metadata: string;
  provenance: string;
  session_id: string | null;
  created_at: string;
}

/** The memory columns every SQL store keeps. */
export interface MemoryColumns {
  id: string;
  subject_id: string;
  kind: string;
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
}

/** A JSON object column, as the store wrote it. */
export function parseObject(text: string): JsonObject {
  // Written by the store with JSON.stringify of an object, so it parses back to one.
  return JSON.parse(text) as JsonObject;
}

/** The public shape of an episode row. */
export function episodeFromRow(row: EpisodeColumns): Episode {
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
export function memoryFromRow(row: MemoryColumns): Memory {
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
