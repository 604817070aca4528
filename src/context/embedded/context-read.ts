import { contextCandidateLimits, hiddenEpisodeTypes } from "../context-limits.js";
import {
  type EpisodeCandidate,
  type MemoryCandidate,
  searchTerms,
  textTerms,
} from "../rank-context.js";
import { compiledUpTo } from "./compile.js";
import {
  type EpisodeRow,
  episodeFromRow,
  type MemoryRawRow,
  memoryFromRawRow,
  memoryRawColumns,
} from "./rows.js";
import { type SqliteHandle, scopePrefix } from "./sqlite-handle.js";

/**
 * Machinery episode types as a SQL literal (the compile rules' fixed identifiers, never user
 * input).
 */
const hiddenTypesSql = `(${hiddenEpisodeTypes.map((type) => `'${type}'`).join(", ")})`;

/** A memory row as `getContext` read it, with its search words. */
interface ContextRow {
  readonly row: MemoryRawRow;
  readonly terms: ReadonlySet<string>;
  /** Characters held (content, summary, metadata, …): what the cache's budget counts. */
  readonly size: number;
}

/** How many characters of memory rows `getContext` keeps parsed (about 2 bytes each). */
const contextRowBudget = 8_000_000;

/**
 * Active memory rows `getContext` has read, by seq, with their search words: reading and
 * tokenising the candidate rows was most of a context's cost, and the same rows are candidates
 * again and again. Never stale, without any invalidation: an active row is never updated in
 * place (the one UPDATE of `memories` supersedes it, and every read re-checks `status`), and a
 * seq is never reused (AUTOINCREMENT), whichever process writes. Oldest first out, by size.
 */
export class ContextRowCache {
  readonly #rows = new Map<number, ContextRow>();
  #chars = 0;

  /** The rows of these active memories' seqs, kept or read (and kept) now. */
  rowsOf(handle: SqliteHandle, seqs: readonly number[]): ContextRow[] {
    const missing = seqs.filter((seq) => !this.#rows.has(seq));
    if (missing.length > 0) {
      const read = handle
        .statement(
          `SELECT ${memoryRawColumns} FROM memories WHERE seq IN (SELECT value FROM json_each(?))`,
        )
        .raw(true);
      for (const row of read.all(JSON.stringify(missing)) as MemoryRawRow[]) {
        const size = row.reduce<number>(
          (total, value) => total + (typeof value === "string" ? value.length : 8),
          0,
        );
        this.#rows.set(row[0], { row, terms: new Set(textTerms(row[4])), size });
        this.#chars += size;
      }
    }
    const rows: ContextRow[] = [];
    for (const seq of seqs) {
      const kept = this.#rows.get(seq);
      if (kept) rows.push(kept);
    }
    // After the rows of this read are taken: they are returned even when over the budget.
    for (const [seq, kept] of this.#rows) {
      if (this.#chars <= contextRowBudget) break;
      this.#rows.delete(seq);
      this.#chars -= kept.size;
    }
    return rows;
  }
}

/**
 * bm25 over the newest `ftsWindow` matches only: walking the match list in rowid order stops
 * early, so the cost stays bounded however large the subject grows. Older memories still compete
 * through the "newest decisions" candidates. Returns the `relevant` best seqs with their rank.
 */
function bestMatches(
  handle: SqliteHandle,
  tenantId: string | null,
  subjectId: string,
  task: string,
): Map<number, number> {
  const rankBySeq = new Map<number, number>();
  const terms = searchTerms(task);
  if (terms.length === 0) return rankBySeq;
  const prefix = scopePrefix(tenantId, subjectId);
  const match = terms.map((term) => `"${prefix}${term}"`).join(" OR ");
  const window = handle
    .statement<{ seq: number; rank: number }>(
      `SELECT rowid AS seq, bm25(memory_fts) AS rank FROM memory_fts
       WHERE memory_fts MATCH ? ORDER BY rowid DESC LIMIT ?`,
    )
    .all(match, contextCandidateLimits.ftsWindow);
  // The sort is stable and the window comes newest first: equal ranks stay newest first.
  const best = window
    .sort((left, right) => left.rank - right.rank)
    .slice(0, contextCandidateLimits.relevant);
  for (const row of best) rankBySeq.set(row.seq, row.rank);
  return rankBySeq;
}

/** The seqs of the candidates: the best matches, the newest memories, the newest decisions. */
function candidateSeqs(
  handle: SqliteHandle,
  tenantId: string | null,
  subjectId: string,
  best: ReadonlyMap<number, number>,
): number[] {
  const sequences = new Set(best.keys());
  const newestSeqs = handle.statement<{ seq: number }>(
    `SELECT seq FROM memories WHERE tenant_id IS ? AND subject_id = ? AND status = 'active' ORDER BY seq DESC LIMIT ?`,
  );
  for (const row of newestSeqs.all(tenantId, subjectId, contextCandidateLimits.newest)) {
    sequences.add(row.seq);
  }
  const decisionSeqs = handle.statement<{ seq: number }>(
    `SELECT seq FROM memories WHERE tenant_id IS ? AND subject_id = ? AND status = 'active'
       AND kind = 'architectural_decision' ORDER BY seq DESC LIMIT ?`,
  );
  for (const row of decisionSeqs.all(tenantId, subjectId, contextCandidateLimits.decisions)) {
    sequences.add(row.seq);
  }
  // The FTS rows are only ever this subject's (scoped terms), and only active memories are
  // indexed; the filters keep it exact anyway.
  return handle
    .statement<number>(
      `SELECT seq FROM memories WHERE seq IN (SELECT value FROM json_each(?))
         AND tenant_id IS ? AND subject_id = ? AND status = 'active'`,
    )
    .pluck(true)
    .all(JSON.stringify([...sequences]), tenantId, subjectId);
}

/**
 * The candidates `rankContext` ranks for `task`, in one read transaction: the same window, cuts
 * and candidate lists as the Postgres store, so both give the same bundle on the same episodes.
 */
export function readContextCandidates(
  handle: SqliteHandle,
  cache: ContextRowCache,
  tenantId: string | null,
  subjectId: string,
  task: string,
): { memories: MemoryCandidate[]; episodes: EpisodeCandidate[] } {
  return handle.transaction(() => {
    const best = bestMatches(handle, tenantId, subjectId, task);
    // Candidate sequences first, whole rows once: the three candidate lists overlap, and
    // reading (and parsing) each row only once is most of what a context costs.
    const rows = cache.rowsOf(handle, candidateSeqs(handle, tenantId, subjectId, best));
    // Fresh objects from the kept strings on every read: the caller may change what it gets.
    const memories: MemoryCandidate[] = rows.map(({ row, terms }) => ({
      memory: memoryFromRawRow(row),
      sequence: row[0],
      bm25: best.get(row[0]) ?? null,
      terms,
    }));
    const episodes = handle
      .statement<EpisodeRow>(
        `SELECT * FROM episodes WHERE tenant_id IS ? AND subject_id = ? AND seq > ?
           AND type NOT IN ${hiddenTypesSql} ORDER BY seq DESC LIMIT ?`,
      )
      .all(
        tenantId,
        subjectId,
        compiledUpTo(handle, tenantId, subjectId),
        contextCandidateLimits.episodes,
      )
      .map((row) => ({ episode: episodeFromRow(row), sequence: row.seq }));
    return { memories, episodes };
  });
}
