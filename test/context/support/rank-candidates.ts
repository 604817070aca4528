import type { Episode, JsonObject, Memory } from "../../../src/context/context-store.js";
import type { EpisodeCandidate, MemoryCandidate } from "../../../src/context/rank-context.js";

/** A memory candidate at `sequence` (its source and score fields as given, else defaults). */
export function candidate(
  sequence: number,
  kind: string,
  content: string,
  fields: { confidence?: number; bm25?: number | null; metadata?: JsonObject } = {},
): MemoryCandidate {
  const memory: Memory = {
    id: `m${sequence}`,
    subjectId: "s",
    kind,
    content,
    summary: content,
    confidence: fields.confidence ?? 0.5,
    validFrom: "2030-01-01T00:00:00.000Z",
    validTo: null,
    sourceEpisodeIds: [`source-${sequence}`],
    metadata: fields.metadata ?? { source: `agent-${sequence}` },
    status: "active",
    createdAt: "2030-01-01T00:00:00.000Z",
    updatedAt: "2030-01-01T00:00:00.000Z",
  };
  return { memory, sequence, bm25: fields.bm25 ?? null };
}

/** An episode candidate at `sequence`, its time in seconds from the sequence. */
export function episode(
  sequence: number,
  payload: JsonObject,
  sessionId: string | null = null,
): EpisodeCandidate {
  const value: Episode = {
    id: `e${sequence}`,
    subjectId: "s",
    source: "dev",
    type: "message",
    payload,
    metadata: {},
    provenance: {},
    sessionId,
    createdAt: `2030-01-01T00:00:${String(sequence).padStart(2, "0")}.000Z`,
  };
  return { episode: value, sequence };
}
