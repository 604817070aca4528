import { readMemoryIdsOf, retractsKey, supersedesMemoryIdsOf } from "./compile-memories.js";
import type { Episode, Memory } from "./context-store.js";
import { sourceOf } from "./memory-metadata.js";

/**
 * A decision's life, read from a subject's timeline (episodes and memories of every status): who
 * wrote it, who read it (a later episode's `provenance.read_memory_ids` names it), and who
 * superseded or retracted it, with what. Pure: the same timeline gives the same history.
 */

/** One step of a decision's life. */
export interface DecisionHistoryEvent {
  type: "written" | "read" | "superseded" | "retracted";
  /** The agent whose episode it was. */
  agentId: string;
  /** The episode's time (ISO-8601 UTC). */
  at: string;
  episodeId: string;
  /** `superseded`: the memory that replaced it; `retracted`: the retraction's memory. */
  memoryId?: string;
  /** `superseded`: the replacing decision; `retracted`: the retraction's text. */
  content?: string;
}

/** What became of one memory, as {@link decisionHistory} finds it. */
export interface DecisionHistory {
  memory: Memory;
  /** `retracted` is a memory superseded by a retraction. */
  status: "active" | "superseded" | "retracted" | "deleted";
  /** The agent that wrote it (`metadata.source`). */
  author: string;
  /** The memories it replaced, oldest first. */
  supersedes: string[];
  /** The memory that replaced it (a decision or a retraction), when it is no longer active. */
  supersededBy?: { memoryId: string; agentId: string; content: string; at: string };
  /** Every agent that declared it had read it, in the order they first did. */
  readers: string[];
  /**
   * Present when readers were looked for only among the subject's newest `newestEpisodes`
   * episodes (and those on the memory's target): an agent that read it in an older episode is
   * not listed. Absent: the search was complete.
   */
  readersWithin?: { newestEpisodes: number };
  /** Oldest first. */
  events: DecisionHistoryEvent[];
}

function sameSubjectMatter(left: Memory, right: Memory): boolean {
  const target = left.metadata.target;
  return left.kind === right.kind && typeof target === "string" && right.metadata.target === target;
}

/**
 * The memory that took `memory`'s place: one whose episode named it (`supersedes_memory_ids`, a
 * retraction), else the first later one of the same kind and target that became valid when it
 * stopped being (the supersede rule of every store sets `validTo` to the newer one's `validFrom`).
 */
function replacementOf(
  memory: Memory,
  memories: readonly Memory[],
  episodeOf: (memory: Memory) => Episode | undefined,
): Memory | undefined {
  if (memory.status === "active") return undefined;
  const position = memories.indexOf(memory);
  const later = memories.slice(position + 1).filter((other) => sameSubjectMatter(memory, other));
  const named = later.find(
    (other) =>
      other.metadata[retractsKey] === memory.id ||
      supersedesMemoryIdsOf(episodeOf(other)?.provenance).includes(memory.id),
  );
  if (named !== undefined) return named;
  return later.find(
    (other) =>
      other.validFrom === memory.validTo &&
      supersedesMemoryIdsOf(episodeOf(other)?.provenance).length === 0,
  );
}

/**
 * The history of `memoryId` in `timeline`, or `undefined` when the timeline has no such memory.
 * @param timeline the subject's whole timeline, oldest first (episodes and memories)
 */
export function decisionHistory(
  timeline: { episodes: readonly Episode[]; memories: readonly Memory[] },
  memoryId: string,
): DecisionHistory | undefined {
  const memory = timeline.memories.find((candidate) => candidate.id === memoryId);
  if (memory === undefined) return undefined;
  const episodes = new Map(timeline.episodes.map((episode) => [episode.id, episode]));
  const order = new Map(timeline.episodes.map((episode, index) => [episode.id, index]));
  const episodeOf = (of: Memory) => {
    const id = of.sourceEpisodeIds[0];
    return id === undefined ? undefined : episodes.get(id);
  };
  const memories = timeline.memories;
  const written = episodeOf(memory);
  const replacement = replacementOf(memory, memories, episodeOf);
  const replacingEpisode = replacement === undefined ? undefined : episodeOf(replacement);
  const retracted = replacement !== undefined && replacement.metadata[retractsKey] === memory.id;
  const events: DecisionHistoryEvent[] = [];
  events.push({
    type: "written",
    agentId: sourceOf(memory),
    at: written?.createdAt ?? memory.createdAt,
    episodeId: written?.id ?? memory.sourceEpisodeIds[0] ?? "",
  });
  for (const episode of timeline.episodes) {
    if (episode.id === written?.id || episode.id === replacingEpisode?.id) continue;
    if (!readMemoryIdsOf(episode.provenance).includes(memory.id)) continue;
    events.push({
      type: "read",
      agentId: episode.source,
      at: episode.createdAt,
      episodeId: episode.id,
    });
  }
  if (replacement !== undefined) {
    events.push({
      type: retracted ? "retracted" : "superseded",
      agentId: sourceOf(replacement),
      at: replacingEpisode?.createdAt ?? replacement.createdAt,
      episodeId: replacingEpisode?.id ?? replacement.sourceEpisodeIds[0] ?? "",
      memoryId: replacement.id,
      content: replacement.content,
    });
  }
  // Episode order is the store's one total order; times alone may tie.
  const rank = (event: DecisionHistoryEvent) =>
    order.get(event.episodeId) ?? Number.MAX_SAFE_INTEGER;
  events.sort((left, right) => rank(left) - rank(right));
  const readers: string[] = [];
  for (const event of events) {
    if (event.type === "read" && !readers.includes(event.agentId)) readers.push(event.agentId);
  }
  const supersedes = memories
    .filter((older) => older !== memory && sameSubjectMatter(memory, older))
    .filter((older) => replacementOf(older, memories, episodeOf) === memory)
    .map((older) => older.id);
  return {
    memory,
    status: retracted ? "retracted" : memory.status,
    author: sourceOf(memory),
    supersedes,
    ...(replacement === undefined
      ? {}
      : {
          supersededBy: {
            memoryId: replacement.id,
            agentId: sourceOf(replacement),
            content: replacement.content,
            at: replacingEpisode?.createdAt ?? replacement.createdAt,
          },
        }),
    readers,
    events,
  };
}
