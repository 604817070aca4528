import type {
  CompileJob,
  CompileResult,
  ContextBundle,
  DeleteSubjectResult,
  Episode,
  ListSubjectsResult,
  Memory,
  Timeline,
} from "../context/context-store.js";

/**
 * Store results -> Statewave's wire shapes (contract §4, §5), field by field, so the server
 * answers exactly the documented fields whatever extra members a store object carries.
 * `payload`, `metadata` and `provenance` are passed through untouched.
 */

/** An `Episode` on the wire; `session_id` is always present, `null` when unset (contract §4). */
export function episodeToWire(episode: Episode) {
  return {
    id: episode.id,
    subject_id: episode.subjectId,
    source: episode.source,
    type: episode.type,
    payload: episode.payload,
    metadata: episode.metadata,
    provenance: episode.provenance,
    session_id: episode.sessionId ?? null,
    created_at: episode.createdAt,
  };
}

/** Statewave's memory kinds (contract §4): the only ones a Statewave client expects on the wire. */
export const statewaveKinds: ReadonlySet<string> = new Set([
  "profile_fact",
  "episode_summary",
  "procedure",
  "artifact_ref",
]);

/** The stored kinds the embedded compile makes that are `episode_summary` on the wire. */
export const summaryStoreKinds: readonly string[] = [
  "episode_summary",
  "architectural_decision",
  "implementation_note",
  "review_finding",
];

/** The kind a memory has on the wire: its own when Statewave has it, else `episode_summary`. */
export function wireKindOf(kind: string): string {
  return statewaveKinds.has(kind) ? kind : "episode_summary";
}

/**
 * A `Memory` on the wire (contract §4, §14): Statewave's kind; shared-ctx's richer kind
 * (`architectural_decision`, …) travels in `metadata.kind`, where shared-ctx's client reads it.
 */
export function memoryToWire(memory: Memory) {
  const kind = wireKindOf(memory.kind);
  return {
    id: memory.id,
    subject_id: memory.subjectId,
    kind,
    content: memory.content,
    summary: memory.summary,
    confidence: memory.confidence,
    valid_from: memory.validFrom,
    valid_to: memory.validTo,
    source_episode_ids: memory.sourceEpisodeIds,
    metadata: kind === memory.kind ? memory.metadata : { ...memory.metadata, kind: memory.kind },
    status: memory.status,
    created_at: memory.createdAt,
    updated_at: memory.updatedAt,
  };
}

/** `POST /v1/memories/compile` (sync) response. */
export function compileResultToWire(result: CompileResult) {
  return {
    subject_id: result.subjectId,
    memories_created: result.memoriesCreated,
    memories: result.memories.map(memoryToWire),
  };
}

/** A compile job: `completed` adds `memories_created`/`memories`, `failed` adds `error` (contract §5.4). */
export function compileJobToWire(job: CompileJob) {
  return {
    job_id: job.jobId,
    status: job.status,
    subject_id: job.subjectId,
    ...(job.memoriesCreated !== undefined ? { memories_created: job.memoriesCreated } : {}),
    ...(job.memories !== undefined ? { memories: job.memories.map(memoryToWire) } : {}),
    ...(job.error !== undefined ? { error: job.error } : {}),
  };
}

/** `POST /v1/context` response; `provenance` already has snake_case keys (contract §5.6). */
export function contextBundleToWire(bundle: ContextBundle) {
  return {
    subject_id: bundle.subjectId,
    task: bundle.task,
    facts: bundle.facts.map(memoryToWire),
    episodes: bundle.episodes.map(episodeToWire),
    procedures: bundle.procedures.map(memoryToWire),
    provenance: bundle.provenance,
    assembled_context: bundle.assembledContext,
    token_estimate: bundle.tokenEstimate,
    sessions: bundle.sessions.map((session) => ({
      session_id: session.sessionId,
      episode_count: session.episodeCount,
      first_at: session.firstAt,
      last_at: session.lastAt,
    })),
  };
}

/** `GET /v1/timeline` response. */
export function timelineToWire(timeline: Timeline) {
  return {
    subject_id: timeline.subjectId,
    episodes: timeline.episodes.map(episodeToWire),
    memories: timeline.memories.map(memoryToWire),
  };
}

/** `GET /v1/subjects` response; `total` is the real count, not the page length (contract §14). */
export function subjectsToWire(result: ListSubjectsResult) {
  return {
    subjects: result.subjects.map((subject) => ({
      subject_id: subject.subjectId,
      episode_count: subject.episodeCount,
      memory_count: subject.memoryCount,
    })),
    total: result.total,
  };
}

/** `DELETE /v1/subjects/:id` response. */
export function deleteSubjectToWire(result: DeleteSubjectResult) {
  return {
    subject_id: result.subjectId,
    episodes_deleted: result.episodesDeleted,
    memories_deleted: result.memoriesDeleted,
  };
}
