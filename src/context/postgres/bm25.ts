/** bm25's collection statistics over the subject's active memories. */
export interface Bm25Statistics {
  /** Active memories in the subject (FTS5's row count). */
  rows: number;
  /** Their search words, counted with repeats (FTS5's total column size). */
  tokens: number;
  /** In how many active memories each query word occurs (FTS5's phrase hits). */
  documentCounts: ReadonlyMap<string, number>;
}

const k1 = 1.2;
const b = 0.75;

/**
 * SQLite FTS5's `bm25()` (ext/fts5/fts5_aux.c, default weights), computed the same way and in the
 * same order, so the Postgres store ranks exactly as the embedded store: negative, lower is more
 * relevant. `queryTerms` are the task's search words in order (each one an FTS5 phrase);
 * `frequencies` and `length` are the memory's word counts and word total (see `indexedTerms`).
 * The one difference: FTS5 counts rows and words over the whole database file, this over the
 * subject (the scope every query is confined to anyway).
 */
export function bm25(
  queryTerms: readonly string[],
  frequencies: Readonly<Record<string, number>>,
  length: number,
  statistics: Bm25Statistics,
): number {
  if (statistics.rows === 0) return 0;
  const averageLength = statistics.tokens / statistics.rows;
  let score = 0;
  for (const term of queryTerms) {
    const hits = statistics.documentCounts.get(term) ?? 0;
    let idf = Math.log((statistics.rows - hits + 0.5) / (hits + 0.5));
    if (idf <= 0) idf = 1e-6;
    const f = Object.hasOwn(frequencies, term) ? (frequencies[term] ?? 0) : 0;
    score += idf * ((f * (k1 + 1.0)) / (f + k1 * (1 - b + (b * length) / averageLength)));
  }
  return -1.0 * score;
}
