import type { Memory } from "../../../../src/context/context-store.js";
import type { ContextRead } from "../../../../src/context/shared-context.js";

/** A decision memory as a store returns it, linked to the episode that carried it. */
export function memory(id: string, episodeIds: string[], content = `memory ${id}`): Memory {
  return {
    id,
    subjectId: "repo",
    kind: "architectural_decision",
    content,
    summary: content,
    confidence: 1,
    validFrom: "2026-01-01T00:00:00.000Z",
    validTo: null,
    sourceEpisodeIds: episodeIds,
    metadata: {},
    status: "active",
    createdAt: "2026-01-01T00:00:00.000Z",
    updatedAt: "2026-01-01T00:00:00.000Z",
  };
}

/** What `beforeActing` answers, empty unless given. */
export function contextRead(parts: Partial<ContextRead> & { facts?: Memory[] }): ContextRead {
  const { facts = [], ...rest } = parts;
  return {
    bundle: {
      subjectId: "repo",
      task: "task",
      facts,
      episodes: [],
      procedures: [],
      provenance: { fact_ids: [], summary_ids: [], procedure_ids: [] },
    },
    assembledContext: "",
    namedDecisions: [],
    decisionsLeftOut: 0,
    decisions: [],
    disputes: [],
    contradictions: [],
    changedSinceLastRead: [],
    ...rest,
  } as ContextRead;
}
