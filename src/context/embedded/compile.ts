import Database from "better-sqlite3";
import {
  type ActiveMemory,
  draftOfEpisode,
  type EpisodePlan,
  planEpisode,
  supersedeCandidateOf,
} from "../compile-plan.js";
import type { JsonObject, Memory } from "../context-store.js";
import type { SkippedEpisode } from "../errors/compile-episode-error.js";
import { textTerms } from "../rank-context.js";
import type { EpisodeRow, MemoryRow } from "./rows.js";
import { type SqliteHandle, scopePrefix } from "./sqlite-handle.js";

/** What a compile needs besides the database: the subject, the clock's "now" and the id generator. */
export interface CompileSettings {
  tenantId: string | null;
  subjectId: string;
  now: string;
  generateId: () => string;
}

/** An active memory with the draft's kind and target, by its row's seq. */
interface ActiveRow extends ActiveMemory {
  readonly seq: number;
}

/**
 * Why one episode failed to compile, for the client: the error's class and, for SQLite, its
 * code, never the driver's message (which can quote SQL and internal names).
 */
function compileFailureReason(error: unknown): string {
  if (error instanceof Database.SqliteError) {
    return `the database refused its memory (${error.code})`;
  }
  const name = error instanceof Error ? error.name : typeof error;
  return `an internal error while compiling it (${name})`;
}

/** What the FTS index holds for one memory: its words, each prefixed with the subject scope. */
function scopedTerms(prefix: string, content: string): string {
  return textTerms(content)
    .map((term) => prefix + term)
    .join(" ");
}

/** The seq of the last episode compile has seen for the subject (0: none yet). */
export function compiledUpTo(
  handle: SqliteHandle,
  tenantId: string | null,
  subjectId: string,
): number {
  return (
    handle
      .statement<{ seq: number }>(
        `SELECT compiled_seq AS seq FROM compile_marks WHERE tenant_id IS ? AND subject_id = ?`,
      )
      .get(tenantId, subjectId)?.seq ?? 0
  );
}

/**
 * One episode's writes (its plan's steps, in order, each taking the next change seq), in a
 * savepoint of its own: a failing episode is rolled back alone. Returns the plan, or undefined
 * for an episode that carries no knowledge.
 */
function episodeCompiler(
  handle: SqliteHandle,
  settings: CompileSettings,
  changes: { seq: number },
): (row: EpisodeRow) => EpisodePlan<ActiveRow> | undefined {
  const { tenantId, subjectId, now } = settings;
  const scope = scopePrefix(tenantId, subjectId);
  // ORDER BY seq: the contradiction list must come out the same on every compile.
  const findSameTarget = handle.statement<MemoryRow>(
    `SELECT * FROM memories WHERE tenant_id IS ? AND subject_id = ? AND kind = ? AND target = ? AND status = 'active' ORDER BY seq`,
  );
  const supersede = handle.statement(
    `UPDATE memories SET status = 'superseded', valid_to = ?, updated_at = ?, change_seq = ? WHERE seq = ?`,
  );
  const unindex = handle.statement(`DELETE FROM memory_fts WHERE rowid = ?`);
  const insertMemory = handle.statement(
    `INSERT INTO memories (id, tenant_id, subject_id, kind, target, content, summary, confidence, valid_from,
       valid_to, source_episode_ids, metadata, status, created_at, updated_at, change_seq)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, NULL, ?, ?, 'active', ?, ?, ?)`,
  );
  const index = handle.statement(`INSERT INTO memory_fts (rowid, terms) VALUES (?, ?)`);
  const insert = (memory: Memory, target: string | null) => {
    const result = insertMemory.run(
      memory.id,
      tenantId,
      subjectId,
      memory.kind,
      target,
      memory.content,
      memory.summary,
      memory.confidence,
      memory.validFrom,
      JSON.stringify(memory.sourceEpisodeIds),
      JSON.stringify(memory.metadata),
      now,
      now,
      changes.seq,
    );
    index.run(result.lastInsertRowid, scopedTerms(scope, memory.content));
  };
  return handle.db.transaction((row: EpisodeRow) => {
    const drafted = draftOfEpisode(row);
    if (!drafted) return undefined;
    const { kind, target } = drafted.draft;
    const active: ActiveRow[] =
      target === null
        ? []
        : findSameTarget.all(tenantId, subjectId, kind, target).map((old) => ({
            seq: old.seq,
            candidate: supersedeCandidateOf(old.id, JSON.parse(old.metadata) as JsonObject),
          }));
    const plan = planEpisode(row, drafted, active, settings);
    for (const step of plan.steps) {
      changes.seq += 1;
      if (step.type === "insert") {
        insert(step.memory, step.target);
        continue;
      }
      supersede.run(plan.validFrom, now, changes.seq, step.old.seq);
      unindex.run(step.old.seq);
    }
    return plan;
  });
}

/**
 * Compiles a subject's uncompiled episodes; the caller holds the write lock (`BEGIN IMMEDIATE`),
 * so two processes compiling the same subject at once never both turn one episode into a memory.
 * Per-episode quarantine: an episode whose writes fail is rolled back, skipped for good (the
 * compile mark moves past it) and named in `skipped`; the others compile.
 */
export function compileLocked(
  handle: SqliteHandle,
  settings: CompileSettings,
): { memories: Memory[]; skipped: SkippedEpisode[] } {
  const { tenantId, subjectId, now } = settings;
  // Pages of episodes, so a 100k-episode subject is never loaded whole.
  const readPage = (after: number) =>
    handle
      .statement<EpisodeRow>(
        `SELECT * FROM episodes WHERE tenant_id IS ? AND subject_id = ? AND seq > ? ORDER BY seq LIMIT 1000`,
      )
      .all(tenantId, subjectId, after);
  let page = readPage(compiledUpTo(handle, tenantId, subjectId));
  if (page.length === 0) return { memories: [], skipped: [] };
  let compiledSeq = 0;
  const counter = handle
    .statement<{ value: number }>(`SELECT value FROM counters WHERE name = 'memory_change'`)
    .get();
  const changes = { seq: counter?.value ?? 0 };
  const compileOne = episodeCompiler(handle, settings, changes);
  const created = new Map<string, Memory>();
  const skipped: SkippedEpisode[] = [];
  for (; page.length > 0; page = readPage(compiledSeq)) {
    for (const row of page) {
      compiledSeq = row.seq;
      let plan: EpisodePlan<ActiveRow> | undefined;
      try {
        plan = compileOne(row);
      } catch (error) {
        // SQLite rolled the whole transaction back (SQLITE_BUSY, SQLITE_FULL): not this
        // episode's fault, and nothing to go on with. The compile fails; nothing is skipped.
        if (!handle.inTransaction) throw error;
        // The savepoint rolled this episode back. It is skipped for good (the compile mark
        // moves past it), so one episode can never poison its subject: the rest compile now,
        // and later episodes on every later compile.
        skipped.push({ episodeId: row.id, type: row.type, reason: compileFailureReason(error) });
        continue;
      }
      if (plan) keepCreated(created, plan, now);
    }
  }
  markCompiled(handle, tenantId, subjectId, compiledSeq, changes.seq);
  return { memories: [...created.values()], skipped };
}

/** The memories this compile created, with those a later episode of it superseded marked so. */
function keepCreated(created: Map<string, Memory>, plan: EpisodePlan<ActiveRow>, now: string) {
  for (const step of plan.steps) {
    if (step.type !== "supersede") continue;
    const sameCall = created.get(step.old.candidate.id);
    if (sameCall) {
      sameCall.status = "superseded";
      sameCall.validTo = plan.validFrom;
      sameCall.updatedAt = now;
    }
  }
  created.set(plan.memory.id, plan.memory);
  for (const fact of plan.facts) created.set(fact.id, fact);
}

/** Moves the subject's compile mark and the memory change counter past this compile. */
function markCompiled(
  handle: SqliteHandle,
  tenantId: string | null,
  subjectId: string,
  compiledSeq: number,
  changeSeq: number,
): void {
  const marked = handle
    .statement(`UPDATE compile_marks SET compiled_seq = ? WHERE tenant_id IS ? AND subject_id = ?`)
    .run(compiledSeq, tenantId, subjectId);
  if (marked.changes === 0) {
    handle
      .statement(`INSERT INTO compile_marks (tenant_id, subject_id, compiled_seq) VALUES (?, ?, ?)`)
      .run(tenantId, subjectId, compiledSeq);
  }
  handle.statement(`UPDATE counters SET value = ? WHERE name = 'memory_change'`).run(changeSeq);
}
