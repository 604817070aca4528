import { Fail, internalError } from "./emulator-validation.js";
import type { Json } from "./statewave-heuristic.js";
import { compileHeuristic, jaccard } from "./statewave-heuristic.js";

// The emulator's memory: its rows as v0.7.1 stores them (JSONB key order, pydantic timestamps,
// a strictly increasing transaction clock), the heuristic compile with supersession, and the wire
// form of each row.

/** The rows, jobs and counters of one emulator, and its injected clock and ids. */
export interface EmulatorState {
  readonly episodes: EpisodeRow[];
  readonly memories: MemoryRow[];
  readonly jobs: Map<string, JobRow>;
  readonly now: () => number;
  readonly generateId: () => string;
  readonly generateJobId: () => string;
  /** The last row number given (episodes and memories share it). */
  seq: number;
  /** The last transaction time, in ms with a fraction (see `tick`). */
  lastTime: number;
}

/** An episode as v0.7.1 stores it. */
export interface EpisodeRow {
  seq: number;
  tenant: string | null;
  id: string;
  subject_id: string;
  source: string;
  type: string;
  payload: { [key: string]: Json };
  metadata: { [key: string]: Json };
  provenance: { [key: string]: Json };
  session_id: string | null;
  created_at: string;
  time: number;
  compiled: boolean;
}

/** A memory as v0.7.1 stores it. */
export interface MemoryRow {
  seq: number;
  tenant: string | null;
  id: string;
  subject_id: string;
  kind: string;
  content: string;
  summary: string;
  confidence: number;
  valid_from: string;
  valid_to: string | null;
  source_episode_ids: string[];
  metadata: { [key: string]: Json };
  status: "active" | "superseded";
  created_at: string;
  updated_at: string;
  time: number;
}

/** A compile job. */
export interface JobRow {
  job_id: string;
  status: "pending" | "running" | "completed" | "failed";
  subject_id: string;
  memories_created?: number;
  memories?: ReturnType<typeof memoryWire>[];
  error?: string;
}

/** pydantic v2 ISO-8601: UTC `Z`, microseconds as 6 digits, left out when zero (contract §1). */
export function pydanticTimestamp(ms: number, micros = 0): string {
  const base = new Date(Math.floor(ms)).toISOString().slice(0, 19);
  const fraction = (Math.floor(ms) % 1000) * 1000 + micros;
  return fraction === 0 ? `${base}Z` : `${base}.${String(fraction).padStart(6, "0")}Z`;
}

/** JSONB re-orders object keys: shorter keys first, then bytewise (observed in the fixtures). */
export function jsonb(value: Json): Json {
  if (Array.isArray(value)) return value.map(jsonb);
  if (typeof value !== "object" || value === null) return value;
  const keys = Object.keys(value).sort((a, b) => {
    const left = Buffer.byteLength(a);
    const right = Buffer.byteLength(b);
    if (left !== right) return left - right;
    return Buffer.compare(Buffer.from(a), Buffer.from(b));
  });
  const result: { [key: string]: Json } = {};
  for (const key of keys) result[key] = jsonb(value[key] ?? null);
  return result;
}

/** Postgres refuses U+0000 and lone surrogates in JSONB: v0.7.1 answers 500. */
export function hasUnstorableText(value: Json): boolean {
  if (typeof value === "string") {
    // A lone surrogate: a high one not followed by a low one, or a low one not preceded by a high one.
    return (
      value.includes("\u0000") ||
      /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(value)
    );
  }
  if (Array.isArray(value)) return value.some(hasUnstorableText);
  if (typeof value !== "object" || value === null) return false;
  return Object.entries(value).some(
    ([key, inner]) => hasUnstorableText(key) || hasUnstorableText(inner),
  );
}

/** An episode as the API answers it. */
export function episodeWire(row: EpisodeRow) {
  return {
    id: row.id,
    subject_id: row.subject_id,
    source: row.source,
    type: row.type,
    payload: row.payload,
    metadata: row.metadata,
    provenance: row.provenance,
    session_id: row.session_id,
    created_at: row.created_at,
  };
}

/** A memory as the API answers it. */
export function memoryWire(row: MemoryRow) {
  return {
    id: row.id,
    subject_id: row.subject_id,
    kind: row.kind,
    content: row.content,
    summary: row.summary,
    confidence: row.confidence,
    valid_from: row.valid_from,
    valid_to: row.valid_to,
    source_episode_ids: row.source_episode_ids,
    metadata: row.metadata,
    status: row.status,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

/** A strictly increasing clock, so "transaction start" times are distinct and ordered. */
export function tick(state: EmulatorState): { time: number; stamp: string } {
  const time = Math.max(state.now(), state.lastTime + 0.001);
  state.lastTime = time;
  const ms = Math.floor(time);
  const micros = Math.round((time - ms) * 1000);
  return { time, stamp: pydanticTimestamp(ms, micros) };
}

/** Header present: that tenant only; absent: every tenant (contract §2). */
export const visible = (tenant: string | null | undefined) => (row: { tenant: string | null }) =>
  tenant === undefined || row.tenant === tenant;

/** Stores episodes as one transaction: one creation time for all. */
export function insertEpisodes(
  state: EmulatorState,
  items: { [key: string]: Json }[],
  tenant: string | undefined,
): EpisodeRow[] {
  for (const item of items) if (hasUnstorableText(item)) throw new Fail(500, internalError());
  const { time, stamp } = tick(state);
  return items.map((item) => {
    state.seq += 1;
    const row: EpisodeRow = {
      seq: state.seq,
      tenant: tenant ?? null,
      id: state.generateId(),
      subject_id: item.subject_id as string,
      source: item.source as string,
      type: item.type as string,
      payload: jsonb(item.payload ?? {}) as { [key: string]: Json },
      metadata: jsonb(item.metadata ?? {}) as { [key: string]: Json },
      provenance: jsonb(item.provenance ?? {}) as { [key: string]: Json },
      session_id: typeof item.session_id === "string" ? item.session_id : null,
      created_at: stamp,
      time,
      compiled: false,
    };
    state.episodes.push(row);
    return row;
  });
}

/** The heuristic compile of a subject's uncompiled episodes (the oldest 500), then supersession. */
export function compile(
  state: EmulatorState,
  subjectId: string,
  tenant: string | undefined,
): MemoryRow[] {
  const pending = state.episodes
    .filter((row) => row.subject_id === subjectId && !row.compiled && visible(tenant)(row))
    .sort((a, b) => a.time - b.time || a.seq - b.seq)
    .slice(0, 500);
  if (pending.length === 0) return [];
  const drafts = pending.map((row) => ({ row, drafts: compileHeuristic(row.payload) }));
  const { time, stamp } = tick(state);
  const created: MemoryRow[] = [];
  for (const { row, drafts: list } of drafts) {
    for (const draft of list) {
      state.seq += 1;
      created.push({
        seq: state.seq,
        tenant: tenant ?? null,
        id: state.generateId(),
        subject_id: subjectId,
        kind: draft.kind,
        content: draft.content,
        summary: draft.summary,
        confidence: draft.confidence,
        valid_from: row.created_at,
        valid_to: null,
        source_episode_ids: [row.id],
        metadata: {},
        status: "active",
        created_at: stamp,
        updated_at: stamp,
        time,
      });
    }
    row.compiled = true;
  }
  state.memories.push(...created);
  resolveConflicts(state.memories, subjectId);
  return created;
}

/** After every compile, across tenants (a v0.7.1 leak, contract §2, §8). */
function resolveConflicts(memories: MemoryRow[], subjectId: string): void {
  const active = memories
    .filter((row) => row.subject_id === subjectId && row.status === "active")
    .sort((a, b) => a.time - b.time || a.seq - b.seq)
    .slice(0, 500);
  const byKind = new Map<string, MemoryRow[]>();
  for (const row of active) byKind.set(row.kind, [...(byKind.get(row.kind) ?? []), row]);
  for (const [kind, rows] of byKind) {
    const threshold = kind === "profile_fact" ? 0.6 : 0.8;
    rows.forEach((older, index) => {
      const newer = rows
        .slice(index + 1)
        .find(
          (candidate) =>
            candidate.time > older.time && jaccard(older.content, candidate.content) >= threshold,
        );
      if (newer === undefined) return;
      older.status = "superseded";
      older.valid_to = newer.valid_from;
    });
  }
}

/** A subject's newest active memories of one kind, as the context route reads them. */
export function newestActive(
  state: EmulatorState,
  subjectId: string,
  tenant: string | undefined,
  kind: string,
  limit: number,
): MemoryRow[] {
  return state.memories
    .filter((row) => row.subject_id === subjectId && row.status === "active" && row.kind === kind)
    .filter(visible(tenant))
    .sort((a, b) => b.time - a.time || a.seq - b.seq)
    .slice(0, limit);
}
