import { type Authority, authorityOf, defaultAuthority } from "./authority.js";
import { episodeText, firstCodePoints } from "./compile-memories.js";
import type { ContextBundle, Episode, Memory } from "./context-store.js";

/**
 * Pure ranking and assembly of a context bundle. The store picks a bounded set of candidates
 * with SQL (FTS5 top-k, newest memories, newest decisions, newest episodes); this module scores
 * them, packs them into the token budget and renders `assembledContext`. Same candidates and
 * request in, byte-identical bundle out.
 */

/**
 * Token estimate: `ceil(characters / 4)` (UTF-16 units), the usual rule of thumb for English
 * with BPE tokenizers. It needs no tokenizer table, and because every piece is rounded up
 * the sum of the pieces is never below the estimate of the whole text.
 */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

/** Kind priority: decisions outrank findings, which outrank notes and summaries. */
export const kindPriority: Readonly<Record<string, number>> = {
  architectural_decision: 4,
  review_finding: 3,
  procedure: 3,
  implementation_note: 2,
  profile_fact: 2,
  artifact_ref: 1.5,
  episode_summary: 1,
};

/**
 * Score added for a memory's authority (`metadata.authority`). An agent's (the default) adds
 * nothing, so memories that name no class rank as they always did; a person's adds 2, more than
 * recency can give (1.5), so in a dispute the person's older decision outranks an agent's later one
 * of the same kind, relevance and confidence.
 */
export const authorityWeight: Readonly<Record<Authority, number>> = {
  user: 2,
  verified: 1,
  agent: 0,
  speculative: -1,
};

/** Words too common to say anything about relevance. */
const stopWords: ReadonlySet<string> = new Set(
  "a an and are as at be by for from has have in into is it its of on or that the this to was were will with we you i our".split(
    " ",
  ),
);

/**
 * The words of `text` for search: lower-cased, accents removed (NFKD without combining marks),
 * split on anything that is not a letter or digit, without stop words and one-letter words.
 * The store indexes and queries FTS5 with exactly these words, so both sides always agree.
 */
export function textTerms(text: string): string[] {
  // Plain ASCII (the common case) has no accents to fold: skip the costly normalize.
  const ascii = !/[^\p{ASCII}]/u.test(text);
  const folded = (ascii ? text : text.normalize("NFKD").replace(/\p{M}+/gu, "")).toLowerCase();
  const terms: string[] = [];
  for (const match of folded.matchAll(/[\p{L}\p{N}]+/gu)) {
    const term = match[0];
    if (term.length >= 2 && !stopWords.has(term)) terms.push(term);
  }
  return terms;
}

/** The distinct search words of `text` (see {@link textTerms}), first-seen order, at most `max`. */
export function searchTerms(text: string, max = 16): string[] {
  return [...new Set(textTerms(text))].slice(0, max);
}

/** One candidate memory: its row sequence (creation order) and its bm25 score if FTS found it. */
export interface MemoryCandidate {
  memory: Memory;
  sequence: number;
  /** FTS5 `bm25()`: negative, lower is more relevant; `null` when the memory did not match. */
  bm25: number | null;
  /**
   * The memory's search words, `new Set(textTerms(memory.content))`, when the store keeps them
   * (the embedded store does, per row). @default computed from `memory.content`
   */
  terms?: ReadonlySet<string>;
}

/** One candidate episode for "Recent activity". */
export interface EpisodeCandidate {
  episode: Episode;
  sequence: number;
}

export interface RankContextInput {
  subjectId: string;
  task: string;
  maxTokens: number;
  memories: readonly MemoryCandidate[];
  /** Newest first or in any order: they are sorted here. */
  episodes: readonly EpisodeCandidate[];
}

interface Scored {
  candidate: MemoryCandidate;
  score: number;
}

/** Memory sections in the order they are rendered; the kinds not listed go to "Notes". */
const sections = [
  { title: "Decisions", kinds: ["architectural_decision"] },
  { title: "Findings", kinds: ["review_finding"] },
  { title: "Notes", kinds: [] },
  { title: "Procedures", kinds: ["procedure"] },
  { title: "Recent activity", kinds: ["episode_summary"] },
] as const;

function sectionOf(kind: string): string {
  for (const section of sections) {
    if ((section.kinds as readonly string[]).includes(kind)) return section.title;
  }
  return "Notes";
}

/**
 * The text on one line: every run of whitespace becomes one space. Text that has nothing to
 * collapse (the common case) is returned as it is, without building a copy per memory per read.
 */
function oneLine(text: string): string {
  return /\s\s|[^\S ]/.test(text) ? text.replace(/\s+/g, " ") : text;
}

function memoryLine(memory: Memory): string {
  const text = firstCodePoints(oneLine(memory.content), 500);
  const source = memory.metadata.source;
  // The class only when it is not the default: a reader must see that a person said it.
  const authority = authorityOf(memory.metadata);
  const shown = authority === defaultAuthority ? undefined : `authority: ${authority}`;
  const about = [typeof source === "string" && source ? source : undefined, shown].filter(
    (part) => part !== undefined,
  );
  return about.length > 0 ? `- ${text} (${about.join(", ")})` : `- ${text}`;
}

function episodeLine(episode: Episode): string {
  const text = firstCodePoints(oneLine(episodeText(episode.payload)), 150);
  return `- [${episode.source}/${episode.type}] ${text || "(no text content)"}`;
}

/**
 * Score = kind priority (1..4) + relevance (0..5) + recency (0..1.5) + 2 × confidence
 * + authority ({@link authorityWeight}: -1..2).
 * Relevance mixes the share of task terms the memory contains (robust on small subjects, where
 * bm25's IDF is near zero) with bm25 relative to the best match. Recency is linear over the
 * candidates' creation order. Ties: newer first.
 */
function scoreMemories(task: string, candidates: readonly MemoryCandidate[]): Scored[] {
  const terms = searchTerms(task);
  const sequences = candidates.map((candidate) => candidate.sequence);
  const oldest = Math.min(...sequences);
  const newest = Math.max(...sequences);
  const best = Math.min(0, ...candidates.map((candidate) => candidate.bm25 ?? 0));
  const scored = candidates.map((candidate) => {
    const { memory } = candidate;
    let overlap = 0;
    if (terms.length > 0) {
      const words = candidate.terms ?? new Set(textTerms(memory.content));
      overlap = terms.filter((term) => words.has(term)).length / terms.length;
    }
    const bm25Share = best < 0 && candidate.bm25 !== null ? candidate.bm25 / best : 0;
    const relevance = 4 * overlap + bm25Share;
    const sinceOldest = candidate.sequence - oldest;
    const recency = newest === oldest ? 1.5 : (1.5 * sinceOldest) / (newest - oldest);
    // hasOwn: a kind stored by another writer may be `constructor` or `__proto__`.
    const priority = Object.hasOwn(kindPriority, memory.kind) ? kindPriority[memory.kind] : 1;
    const score =
      (priority ?? 1) +
      relevance +
      recency +
      2 * memory.confidence +
      authorityWeight[authorityOf(memory.metadata)];
    return { candidate, score };
  });
  return scored.sort(
    (left, right) => right.score - left.score || right.candidate.sequence - left.candidate.sequence,
  );
}

/**
 * Ranks the candidates for `task` and packs them, greedily in score order, into `maxTokens`
 * (an item that does not fit is skipped and the next one tried). The "## Task" header is always
 * kept, so `tokenEstimate <= maxTokens` holds unless the header alone is over budget.
 */
export function rankContext(input: RankContextInput): ContextBundle {
  const header = `## Task\n${input.task}\n`;
  let used = estimateTokens(header);
  const openedSections = new Set<string>();
  const sectionCost = (title: string) =>
    openedSections.has(title) ? 0 : estimateTokens(`\n## ${title}\n`);

  // Unique by id: a memory can be a candidate for several reasons.
  const unique = new Map<string, MemoryCandidate>();
  for (const candidate of input.memories) unique.set(candidate.memory.id, candidate);
  const ranked = scoreMemories(input.task, [...unique.values()]);

  const included: Array<Scored & { section: string; line: string }> = [];
  for (const item of ranked) {
    const section = sectionOf(item.candidate.memory.kind);
    const line = memoryLine(item.candidate.memory);
    const cost = sectionCost(section) + estimateTokens(`${line}\n`);
    if (used + cost > input.maxTokens) continue;
    used += cost;
    openedSections.add(section);
    // Named fields, not `...item`: the spread was a third of a context's ranking time.
    included.push({ candidate: item.candidate, score: item.score, section, line });
  }

  // Raw episodes already told by a candidate memory would only repeat it.
  const covered = new Set<string>();
  for (const candidate of unique.values()) {
    for (const id of candidate.memory.sourceEpisodeIds) covered.add(id);
  }
  const includedEpisodes: EpisodeCandidate[] = [];
  const newestFirst = [...input.episodes].sort((left, right) => right.sequence - left.sequence);
  for (const candidate of newestFirst) {
    if (covered.has(candidate.episode.id)) continue;
    const cost =
      sectionCost("Recent activity") + estimateTokens(`${episodeLine(candidate.episode)}\n`);
    if (used + cost > input.maxTokens) continue;
    used += cost;
    openedSections.add("Recent activity");
    includedEpisodes.push(candidate);
  }
  includedEpisodes.sort((left, right) => left.sequence - right.sequence);

  const assembledContext = assemble(header, included, includedEpisodes);

  const memories = included.map((item) => item.candidate.memory);
  const episodes = includedEpisodes.map((candidate) => candidate.episode);
  return {
    subjectId: input.subjectId,
    task: input.task,
    facts: memories.filter((memory) => memory.kind !== "procedure"),
    episodes,
    procedures: memories.filter((memory) => memory.kind === "procedure"),
    provenance: {
      fact_ids: memories
        .filter((memory) => memory.kind !== "procedure" && memory.kind !== "episode_summary")
        .map((memory) => memory.id),
      summary_ids: memories
        .filter((memory) => memory.kind === "episode_summary")
        .map((memory) => memory.id),
      procedure_ids: memories
        .filter((memory) => memory.kind === "procedure")
        .map((memory) => memory.id),
      episode_ids: episodes.map((episode) => episode.id),
    },
    assembledContext,
    tokenEstimate: estimateTokens(assembledContext),
    sessions: sessionsOf(episodes),
  };
}

/** The context's text: the header, then each section's lines in section order. */
function assemble(
  header: string,
  included: ReadonlyArray<{ candidate: MemoryCandidate; section: string; line: string }>,
  includedEpisodes: readonly EpisodeCandidate[],
): string {
  const parts = [header];
  for (const section of sections) {
    const lines = included
      .filter((item) => item.section === section.title)
      // "Recent activity" reads as a story, oldest first; the other sections in score order.
      .sort((left, right) =>
        section.title === "Recent activity"
          ? left.candidate.sequence - right.candidate.sequence
          : 0,
      )
      .map((item) => item.line);
    if (section.title === "Recent activity") {
      lines.push(...includedEpisodes.map((candidate) => episodeLine(candidate.episode)));
    }
    if (lines.length > 0)
      parts.push(`\n## ${section.title}\n${lines.map((line) => `${line}\n`).join("")}`);
  }
  return parts.join("");
}

/** The sessions the included episodes belong to, each with its count and first and last time. */
function sessionsOf(
  episodes: readonly Episode[],
): Array<{ sessionId: string; episodeCount: number; firstAt: string; lastAt: string }> {
  const sessions = new Map<
    string,
    { sessionId: string; episodeCount: number; firstAt: string; lastAt: string }
  >();
  for (const episode of episodes) {
    if (!episode.sessionId) continue;
    const session = sessions.get(episode.sessionId);
    if (session) {
      session.episodeCount += 1;
      session.lastAt = episode.createdAt;
    } else {
      sessions.set(episode.sessionId, {
        sessionId: episode.sessionId,
        episodeCount: 1,
        firstAt: episode.createdAt,
        lastAt: episode.createdAt,
      });
    }
  }
  return [...sessions.values()];
}
