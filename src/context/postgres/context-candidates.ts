import type { PoolClient } from "pg";
import {
  contextCandidateLimits as contextCandidates,
  hiddenEpisodeTypes,
} from "../context-limits.js";
import { type EpisodeCandidate, type MemoryCandidate, searchTerms } from "../rank-context.js";
import { type Bm25Statistics, bm25 } from "./bm25.js";
import { queryRows as query } from "./connection.js";
import {
  type EpisodeRow,
  episodeColumns,
  episodeFromRow,
  isIndexable,
  type MemoryRow,
  memoryColumns,
  memoryFromRow,
  scopedQuery,
  scopePrefix,
} from "./rows.js";

/** A full-text match as the window reads it: word counts, no content, with bm25's statistics. */
interface WindowRow {
  mseq: string;
  token_count: number;
  term_freqs: string;
  active_count: string | null;
  active_tokens: string | null;
  doc_counts: Record<string, number> | null;
}

/**
 * The newest `ftsWindow` full-text matches (GIN), as small rows (word counts, no content), with
 * bm25's statistics: ranked here exactly as FTS5 does; the `relevant` best, by mseq, with their
 * rank. Reading every match whole is what made this slow.
 */
async function bestMatches(
  client: PoolClient,
  tenant: string,
  subjectId: string,
  task: string,
): Promise<Map<string, number>> {
  const prefix = scopePrefix(tenant, subjectId);
  // A word too long to be indexed matches nothing here, and would fail the tsquery.
  const terms = searchTerms(task).filter((term) => isIndexable(prefix, term));
  const best = new Map<string, number>();
  if (terms.length === 0) return best;
  const window = await query<WindowRow>(client, {
    name: "shared-ctx-context-window",
    text: `WITH stats AS (
             SELECT c.active_count, c.active_tokens,
               (SELECT json_object_agg(t.term, t.doc_count) FROM term_stats t
                WHERE t.tenant_key = $1 AND t.subject_id = $2 AND t.term = ANY($4::text[])) AS doc_counts
             FROM compile_state c WHERE c.tenant_key = $1 AND c.subject_id = $2)
           SELECT w.mseq, w.token_count, w.term_freqs, s.active_count, s.active_tokens, s.doc_counts FROM (
             SELECT m.mseq, m.token_count, m.term_freqs FROM memories m
             WHERE m.tenant_key = $1 AND m.subject_id = $2 AND m.status = 'active' AND m.terms @@ $3::tsquery
             ORDER BY m.mseq DESC LIMIT ${contextCandidates.ftsWindow}) w LEFT JOIN stats s ON true`,
    values: [tenant, subjectId, scopedQuery(prefix, terms), terms],
  });
  const [first] = window;
  if (!first) return best;
  const statistics: Bm25Statistics = {
    rows: Number(first.active_count ?? 0),
    tokens: Number(first.active_tokens ?? 0),
    documentCounts: new Map(
      Object.entries(first.doc_counts ?? {}).map(([term, count]) => [term, Number(count)]),
    ),
  };
  const ranked = window
    .map((row) => ({
      mseq: row.mseq,
      rank: bm25(
        terms,
        JSON.parse(row.term_freqs) as Record<string, number>,
        row.token_count,
        statistics,
      ),
    }))
    // Ties stay newest first: the window is read newest first and sort is stable.
    .sort((left, right) => left.rank - right.rank)
    .slice(0, contextCandidates.relevant);
  for (const row of ranked) best.set(row.mseq, row.rank);
  return best;
}

/**
 * The candidates `rankContext` ranks for `task`, read in the caller's (read-only, repeatable
 * read) transaction: the same window, bm25 and cuts as the embedded store, so both give the same
 * bundle on the same episodes.
 */
export async function readContextCandidates(
  client: PoolClient,
  tenant: string,
  subjectId: string,
  task: string,
): Promise<{ memories: MemoryCandidate[]; episodes: EpisodeCandidate[] }> {
  const best = await bestMatches(client, tenant, subjectId, task);
  // The best matches whole, the newest active memories, the newest active decisions: one statement.
  const rows = await query<MemoryRow>(client, {
    name: "shared-ctx-context-candidates",
    text: `SELECT ${memoryColumns} FROM memories m WHERE m.mseq = ANY($3::bigint[])
             AND m.tenant_key = $1 AND m.subject_id = $2
           UNION ALL
           SELECT n.* FROM (
             SELECT ${memoryColumns} FROM memories m
             WHERE m.tenant_key = $1 AND m.subject_id = $2 AND m.status = 'active'
             ORDER BY m.mseq DESC LIMIT ${contextCandidates.newest}) n
           UNION ALL
           SELECT d.* FROM (
             SELECT ${memoryColumns} FROM memories m
             WHERE m.tenant_key = $1 AND m.subject_id = $2 AND m.status = 'active' AND m.kind = 'architectural_decision'
             ORDER BY m.mseq DESC LIMIT ${contextCandidates.decisions}) d`,
    values: [tenant, subjectId, [...best.keys()]],
  });
  // A memory can come twice (a best match among the newest too), with the same bm25 both times:
  // rankContext keeps one per id and orders the candidates itself, so neither matters here.
  const memories: MemoryCandidate[] = rows.map((row) => ({
    memory: memoryFromRow(row),
    sequence: Number(row.mseq),
    bm25: best.get(row.mseq) ?? null,
  }));
  const episodes = await query<EpisodeRow>(client, {
    name: "shared-ctx-context-episodes",
    text: `SELECT ${episodeColumns} FROM episodes WHERE tenant_key = $1 AND subject_id = $2
               AND seq > COALESCE((SELECT compiled_seq FROM compile_state WHERE tenant_key = $1 AND subject_id = $2), 0)
               AND type <> ALL($3::text[]) ORDER BY seq DESC LIMIT ${contextCandidates.episodes}`,
    values: [tenant, subjectId, hiddenEpisodeTypes],
  });
  return {
    memories,
    episodes: episodes.map((row) => ({
      episode: episodeFromRow(row),
      sequence: Number(row.seq),
    })),
  };
}
