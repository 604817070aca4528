import { createHash } from "node:crypto";
import { textTerms } from "../rank-context.js";
import type { EpisodeColumns, MemoryColumns } from "../row-mapping.js";

/** An `episodes` row as `pg` returns it (`bigint` arrives as a string). */
export interface EpisodeRow extends EpisodeColumns {
  seq: string;
}

/** A `memories` row as `pg` returns it (without `terms`). */
export interface MemoryRow extends MemoryColumns {
  mseq: string;
  target: string | null;
  change_seq: string;
}

/** The columns of {@link EpisodeRow}, for SELECT lists. */
export const episodeColumns =
  "seq, id, subject_id, source, type, payload, metadata, provenance, session_id, created_at";

/** The columns of {@link MemoryRow} (never the tsvector), for SELECT lists; `m.` qualified. */
export const memoryColumns =
  "m.mseq, m.id, m.subject_id, m.kind, m.target, m.content, m.summary, m.confidence, m.valid_from, m.valid_to, m.source_episode_ids, m.metadata, m.status, m.created_at, m.updated_at, m.change_seq";

/** The stored key of a tenant: `''` is the default tenant, `t:<id>` a named one. */
export function tenantKey(tenantId: string | null): string {
  return tenantId === null ? "" : `t:${tenantId}`;
}

/** What NOTIFY carries for one (tenant, subject): a fixed-length hash, well under the 8000-byte cap. */
export function changeKey(tenant: string, subjectId: string): string {
  return createHash("sha256").update(`${tenant}\u0000${subjectId}`).digest("hex").slice(0, 32);
}

/**
 * The full-text prefix of one (tenant, subject): letters and digits only, so `prefix + word` is
 * one lexeme that cannot collide with another subject's words (the embedded store's scheme).
 */
export function scopePrefix(tenant: string, subjectId: string): string {
  return `s${createHash("sha256").update(`${tenant}\u0000${subjectId}`).digest("hex").slice(0, 20)}x`;
}

/** Postgres refuses lexemes of 2 KiB or more; such "words" (a base64 blob) are never searched for. */
const maxLexemeBytes = 2000;

/**
 * Whether `prefix + term` can be a lexeme: the index leaves longer words out (see
 * {@link indexedTerms}), and a tsquery with one fails ("word is too long"), so a search skips them.
 */
export function isIndexable(prefix: string, term: string): boolean {
  return Buffer.byteLength(prefix + term) < maxLexemeBytes;
}

/** A tsvector is at most 1 MiB: the words past this many bytes of one memory go unindexed. */
const maxIndexedBytes = 512 * 1024;

/** What one memory puts in the full-text index. */
export interface IndexedTerms {
  /** Its distinct search words (see `textTerms`), unprefixed, bounded so an insert never fails. */
  terms: string[];
  /** Its search words counted with repeats: bm25's document length. */
  tokens: number;
  /** How often each of its search words occurs (every word, indexed or not): bm25's term frequencies. */
  frequencies: Record<string, number>;
}

/** The search words of one memory's content, as the index and bm25's statistics count them. */
export function indexedTerms(prefix: string, content: string): IndexedTerms {
  const all = textTerms(content);
  // No prototype: a word like "constructor" is a key like any other.
  const frequencies = Object.create(null) as Record<string, number>;
  for (const term of all) frequencies[term] = (frequencies[term] ?? 0) + 1;
  const terms = new Set<string>();
  let bytes = 0;
  for (const term of all) {
    if (terms.has(term)) continue;
    if (!isIndexable(prefix, term)) continue;
    const size = Buffer.byteLength(prefix + term);
    if (bytes + size > maxIndexedBytes) break;
    bytes += size + 1;
    terms.add(term);
  }
  return { terms: [...terms], tokens: all.length, frequencies };
}

/** A tsquery matching any of `terms` in the subject: `'<prefix>a' | '<prefix>b'`. */
export function scopedQuery(prefix: string, terms: readonly string[]): string {
  // Terms are letters and digits only (textTerms), so quoting needs no escaping.
  return terms.map((term) => `'${prefix}${term}'`).join(" | ");
}

export { episodeFromRow, memoryFromRow } from "../row-mapping.js";
