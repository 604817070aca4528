import {
  type EmulatorState,
  type EpisodeRow,
  episodeWire,
  type MemoryRow,
  memoryWire,
  newestActive,
  visible,
} from "./emulator-store.js";
import { Fail, internalError } from "./emulator-validation.js";
import type { Json } from "./statewave-heuristic.js";
import {
  cleanSummary,
  estimateTokens,
  extractPayloadText,
  HeuristicCompileError,
  recencyScores,
  relevance,
} from "./statewave-heuristic.js";

// v0.7.1's context bundle: memories by kind and the 30 oldest episodes, scored, cut to the token
// budget and assembled into sections.

const kindScore: Readonly<Record<string, number>> = {
  profile_fact: 10,
  procedure: 8,
  episode_summary: 5,
};

/** One line the context may show: a memory or an episode, scored. */
type Item = { score: number; line: string; memory?: MemoryRow; episode?: EpisodeRow };

/** The context bundle of `POST /v1/context` for a validated body. */
export function postContextBody(
  state: EmulatorState,
  body: { [key: string]: Json },
  tenant: string | undefined,
) {
  const subjectId = body.subject_id as string;
  const task = body.task as string;
  const budget = typeof body.max_tokens === "number" ? body.max_tokens : 4000;
  const items = contextItems(state, subjectId, task, tenant);
  const ranked = items
    .map((item, index) => ({ item, index }))
    .sort((a, b) => b.item.score - a.item.score || a.index - b.index)
    .map(({ item }) => item);
  const header = `## Task\n${task}\n`;
  let used = estimateTokens(header);
  const included: Item[] = [];
  for (const item of ranked) {
    const cost = estimateTokens(item.line);
    if (used + cost + 10 > budget) continue;
    used += cost;
    included.push(item);
  }
  const section = (title: string, lines: string[]) =>
    lines.length === 0 ? [] : [title, ...lines, ""];
  const of = (kind: string) => included.filter((item) => item.memory?.kind === kind);
  const includedEpisodes = included.filter((item) => item.episode !== undefined);
  const parts = [
    header,
    ...section(
      "## About this user",
      of("profile_fact").map((item) => item.line),
    ),
    ...section(
      "## Procedures",
      of("procedure").map((item) => item.line),
    ),
    ...section(
      "## Recent history",
      of("episode_summary").map((item) => item.line),
    ),
    ...section(
      "## Recent interactions",
      includedEpisodes.map((item) => item.line),
    ),
  ];
  const assembled = parts.join("\n");
  const memoryRows = (kind: string) =>
    of(kind).flatMap((item) => (item.memory ? [item.memory] : []));
  return {
    subject_id: subjectId,
    task,
    facts: [...memoryRows("profile_fact"), ...memoryRows("episode_summary")].map(memoryWire),
    episodes: includedEpisodes.flatMap((item) => (item.episode ? [episodeWire(item.episode)] : [])),
    procedures: memoryRows("procedure").map(memoryWire),
    provenance: {
      fact_ids: memoryRows("profile_fact").map((row) => row.id),
      summary_ids: memoryRows("episode_summary").map((row) => row.id),
      procedure_ids: memoryRows("procedure").map((row) => row.id),
      episode_ids: includedEpisodes.flatMap((item) => (item.episode ? [item.episode.id] : [])),
    },
    assembled_context: assembled,
    token_estimate: estimateTokens(assembled),
    sessions: [],
  };
}

/** Every memory and episode the context may show, with its score and its line. */
function contextItems(
  state: EmulatorState,
  subjectId: string,
  task: string,
  tenant: string | undefined,
): Item[] {
  const facts = newestActive(state, subjectId, tenant, "profile_fact", 50);
  const procedures = newestActive(state, subjectId, tenant, "procedure", 20);
  const summaries = newestActive(state, subjectId, tenant, "episode_summary", 30);
  const candidates = [...facts, ...procedures, ...summaries];
  const covered = new Set(summaries.flatMap((row) => row.source_episode_ids));
  // The 30 OLDEST episodes (v0.7.1; v1.0 made it newest-first).
  const oldest = state.episodes
    .filter((row) => row.subject_id === subjectId && visible(tenant)(row))
    .sort((a, b) => a.time - b.time || a.seq - b.seq)
    .slice(0, 30)
    .filter((row) => !covered.has(row.id));
  const memoryRecency = recencyScores(candidates.map((row) => row.time));
  const episodeRecency = recencyScores(oldest.map((row) => row.time));
  return [
    ...candidates.map((row, index) => ({
      score:
        (kindScore[row.kind] ?? 1) +
        (memoryRecency[index] ?? 0) +
        relevance(task, row.content) +
        (row.valid_to === null ? 3 : -4),
      line: `- ${row.kind === "episode_summary" ? cleanSummary(row.content) : row.content}`,
      memory: row,
    })),
    ...oldest.map((row, index) => {
      let text = "";
      try {
        text = extractPayloadText(row.payload);
      } catch (error) {
        if (error instanceof HeuristicCompileError) throw new Fail(500, internalError());
        throw error;
      }
      let score = 3 + (episodeRecency[index] ?? 0) + relevance(task, text);
      if (["assistant", "agent", "tool", "system"].includes(row.source)) score += 2;
      else if (["action", "tool_call", "resolution_attempt"].includes(row.type)) score += 2;
      if (text.length < 20) score -= 2;
      const shown = text ? Array.from(text).slice(0, 150).join("") : "(no text content)";
      return { score, line: `- [${row.source}/${row.type}] ${shown}`, episode: row };
    }),
  ];
}
