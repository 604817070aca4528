import { nonMemoryEpisodeTypes } from "./compile-memories.js";

/**
 * How many candidates of each kind `getContext` considers, on every SQL store (SQLite, Postgres),
 * so both give the same bundle on the same episodes; bounded so a context stays fast at 100k.
 */
export const contextCandidateLimits = {
  /** Full-text matches ranked by bm25, newest first. */
  ftsWindow: 250,
  /** The best of those read whole. */
  relevant: 40,
  /** The newest active memories. */
  newest: 40,
  /** The newest active decisions (older ones still compete through these). */
  decisions: 30,
  /** The newest uncompiled episodes ("Recent activity"). */
  episodes: 10,
} as const;

/** Machinery episode types never shown as "Recent activity": the compile rules' own list. */
export const hiddenEpisodeTypes: readonly string[] = [...nonMemoryEpisodeTypes];
