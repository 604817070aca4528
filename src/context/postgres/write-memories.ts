import type { PoolClient } from "pg";
import type { Memory } from "../context-store.js";
import { type IndexedTerms, indexedTerms, type MemoryRow, memoryColumns } from "./rows.js";

/** What a compile has yet to write: supersedes of stored memories, and new memories. */
export interface Pending {
  superseded: Array<{ mseq: string; validTo: string; changeSeq: number }>;
  inserts: PendingInsert[];
}

/** A new memory a compile has yet to write, with the change seq it takes. */
export interface PendingInsert {
  memory: Memory;
  target: string | null;
  changeSeq: number;
}

/** bm25's collection statistics as a compile moves them: what leaves the active set, what joins it. */
export interface StatisticsDelta {
  active: number;
  tokens: number;
  terms: Map<string, number>;
}

/** Adds `delta` into `total`. */
export function addStatistics(total: StatisticsDelta, delta: StatisticsDelta): void {
  total.active += delta.active;
  total.tokens += delta.tokens;
  for (const [term, count] of delta.terms) {
    total.terms.set(term, (total.terms.get(term) ?? 0) + count);
  }
}

/**
 * Writes a compile's pending supersedes and memories; returns the new memories' mseqs (in
 * `pending.inserts` order) and how bm25's statistics moved.
 */
export async function writeMemories(
  client: PoolClient,
  context: { tenant: string; subjectId: string; now: string },
  prefix: string,
  pending: Pending,
): Promise<{ mseqs: string[]; statistics: StatisticsDelta }> {
  const { tenant, subjectId } = context;
  const statistics: StatisticsDelta = { active: 0, tokens: 0, terms: new Map() };
  const count = (indexed: IndexedTerms, sign: 1 | -1) => {
    statistics.active += sign;
    statistics.tokens += sign * indexed.tokens;
    for (const term of indexed.terms) {
      statistics.terms.set(term, (statistics.terms.get(term) ?? 0) + sign);
    }
  };
  const { superseded, inserts } = pending;
  if (superseded.length > 0) {
    const left = await client.query<{ content: string }>(
      `UPDATE memories AS m SET status = 'superseded', valid_to = v.valid_to, updated_at = $1, change_seq = v.change_seq
       FROM unnest($2::bigint[], $3::text[], $4::bigint[]) AS v (mseq, valid_to, change_seq)
       WHERE m.mseq = v.mseq RETURNING m.content`,
      [
        context.now,
        superseded.map((item) => item.mseq),
        superseded.map((item) => item.validTo),
        superseded.map((item) => item.changeSeq),
      ],
    );
    for (const row of left.rows) count(indexedTerms(prefix, row.content), -1);
  }
  const indexed = inserts.map((item) => indexedTerms(prefix, item.memory.content));
  inserts.forEach((item, position) => {
    const terms = indexed[position];
    if (item.memory.status === "active" && terms) count(terms, 1);
  });
  const mseqs: string[] = [];
  // Inserted in creation order in chunks, so mseq (the memories' order) follows it.
  for (let start = 0; start < inserts.length; start += 1000) {
    const chunk = inserts.slice(start, start + 1000);
    const chunkTerms = indexed.slice(start, start + 1000);
    const result = await client.query<{ mseq: string }>(
      `INSERT INTO memories (id, tenant_key, subject_id, kind, target, content, summary, confidence,
         valid_from, valid_to, source_episode_ids, metadata, status, created_at, updated_at, change_seq, token_count, term_freqs, terms)
       SELECT v.id, $1, $2, v.kind, v.target, v.content, v.summary, v.confidence, v.valid_from, v.valid_to,
         v.source_episode_ids, v.metadata, v.status, $3, $3, v.change_seq, v.token_count, v.term_freqs,
         array_to_tsvector(string_to_array(v.terms, ' '))
       FROM unnest($4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::float8[], $10::text[],
         $11::text[], $12::text[], $13::text[], $14::text[], $15::bigint[], $16::text[], $17::integer[], $18::text[])
         WITH ORDINALITY AS v (id, kind, target, content, summary, confidence, valid_from, valid_to,
           source_episode_ids, metadata, status, change_seq, terms, token_count, term_freqs, position)
       ORDER BY v.position
       RETURNING mseq`,
      [
        tenant,
        subjectId,
        context.now,
        chunk.map((item) => item.memory.id),
        chunk.map((item) => item.memory.kind),
        chunk.map((item) => item.target),
        chunk.map((item) => item.memory.content),
        chunk.map((item) => item.memory.summary),
        chunk.map((item) => item.memory.confidence),
        chunk.map((item) => item.memory.validFrom),
        chunk.map((item) => item.memory.validTo),
        chunk.map((item) => JSON.stringify(item.memory.sourceEpisodeIds)),
        chunk.map((item) => JSON.stringify(item.memory.metadata)),
        chunk.map((item) => item.memory.status),
        chunk.map((item) => item.changeSeq),
        chunkTerms.map((item) => item.terms.map((term) => prefix + term).join(" ")),
        chunkTerms.map((item) => item.tokens),
        chunkTerms.map((item) => JSON.stringify(item.frequencies)),
      ],
    );
    // INSERT … SELECT … ORDER BY assigns mseqs in that order; sorted, they follow the chunk.
    mseqs.push(...result.rows.map((row) => row.mseq).sort((a, b) => Number(a) - Number(b)));
  }
  return { mseqs, statistics };
}

/** The memories with these ids, oldest first (a finished compile job's result). */
export async function memoriesByIds(
  client: Pick<PoolClient, "query">,
  tenant: string,
  ids: readonly string[],
): Promise<MemoryRow[]> {
  const result = await client.query<MemoryRow>(
    `SELECT ${memoryColumns} FROM memories m WHERE m.tenant_key = $1 AND m.id = ANY($2::text[]) ORDER BY m.mseq`,
    [tenant, ids],
  );
  return result.rows;
}
