/**
 * Reading the decisions of a subject as promotion plans them: each memory with its writer, its
 * authority and what its writer had read, taken from the episodes it was compiled from.
 */
import { authorityKey, authorityOf } from "../context/authority.js";
import { readMemoryIdsOf } from "../context/compile-memories.js";
import type { ContextStore, Episode, Memory } from "../context/context-store.js";
import { readWholeTimeline } from "../context/whole-timeline.js";
import type { PromotionCandidate } from "./plan-promotion.js";
import {
  type PromotionVerdict,
  promotionSourceOf,
  promotionVerdictOf,
} from "./promotion-records.js";

export { readWholeTimeline };

/** The memory kinds a promotion carries: decisions. */
export const promotedKinds: readonly string[] = ["architectural_decision"];

/**
 * One memory as a promotion candidate. Its authority is the memory's own `metadata.authority`
 * when the store recorded one, else its source episode's (stores that do not copy it yet).
 */
export function candidateOf(
  memory: Memory,
  episodesById: ReadonlyMap<string, Episode>,
): PromotionCandidate {
  const sources = memory.sourceEpisodeIds.flatMap((id) => {
    const episode = episodesById.get(id);
    return episode ? [episode] : [];
  });
  const first = sources[0];
  const declared = Object.hasOwn(memory.metadata, authorityKey) ? memory.metadata : first?.metadata;
  const source = memory.metadata.source;
  const promotedFrom = first ? promotionSourceOf(first.metadata) : undefined;
  return {
    memory,
    author: typeof source === "string" ? source : (first?.source ?? "unknown"),
    authority: authorityOf(declared),
    readMemoryIds: [...new Set(sources.flatMap((episode) => readMemoryIdsOf(episode.provenance)))],
    ...(promotedFrom ? { promotedFrom } : {}),
  };
}

/** What a subject holds for a promotion. */
export interface SubjectDecisions {
  /** Decisions of the promoted kinds, every status, oldest first. */
  decisions: PromotionCandidate[];
  /** Promotion verdicts recorded in the subject, oldest first. */
  verdicts: PromotionVerdict[];
}

/** A subject's decisions (every status) and the promotion verdicts it records. */
export async function readSubjectDecisions(
  store: ContextStore,
  subjectId: string,
  options: { signal?: AbortSignal; kinds?: readonly string[] } = {},
): Promise<SubjectDecisions> {
  const timeline = await readWholeTimeline(store, subjectId, options);
  const kinds = new Set(options.kinds ?? promotedKinds);
  const episodesById = new Map(timeline.episodes.map((episode) => [episode.id, episode]));
  return {
    decisions: timeline.memories
      .filter((memory) => kinds.has(memory.kind) && memory.status !== "deleted")
      .map((memory) => candidateOf(memory, episodesById)),
    verdicts: timeline.episodes.flatMap((episode) => {
      const verdict = promotionVerdictOf(episode);
      return verdict ? [verdict] : [];
    }),
  };
}
