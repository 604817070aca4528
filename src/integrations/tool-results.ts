import type { Episode, Memory, Timeline } from "../context/context-store.js";
import type { ContextRead } from "../context/shared-context.js";
import { Disputed, type Escalation } from "../crdt/shared-state.js";

/**
 * What the integration tools return, shaped for a model to read: plain JSON, short, with the
 * fields an agent acts on (who decided what, what is disputed) and none of the storage noise.
 */

/** A decision (or note, or finding) as an agent sees it. */
export interface DecisionView {
  id: string;
  kind: string;
  content: string;
  confidence: number;
  /** What the decision is about, when the publisher named it. */
  target?: string;
  status: string;
}

/** A disputed field: every contender, so nobody silently wins. */
export interface EscalationView {
  id: string;
  namespace: string;
  key: string;
  reason: string;
  contenders: Array<{ agentId: string; value: unknown; at: string }>;
  resolution?: { value: unknown; by: string; at: string };
}

/** The result of `check_shared_decisions`. */
export interface CheckSharedDecisionsResult {
  decisions: DecisionView[];
  disputes: EscalationView[];
  changedSinceLastRead: DecisionView[];
  /** The ranked context as one text, ready to paste into a prompt. */
  context: string;
}

/** The result of `publish_decision`. */
export interface PublishDecisionResult {
  episodeId: string;
  /** The memories the decision compiled into (usually one). */
  memories: DecisionView[];
}

/** One episode of `get_timeline`, without binary payloads. */
export interface EpisodeView {
  id: string;
  at: string;
  source: string;
  type: string;
  /** The payload's text (content, text or summary), when it has one. */
  text?: string;
}

/** The result of `get_timeline`. */
export interface TimelineResult {
  subjectId: string;
  episodes: EpisodeView[];
  memories: DecisionView[];
}

/** Episode types that carry CRDT sync bytes rather than anything a reader wants to see. */
const stateSyncEpisodeTypes = new Set(["state_update", "state_snapshot"]);

/** True for the episodes that carry CRDT sync bytes (`state_update`, `state_snapshot`). */
export function isStateSyncEpisode(episode: Episode): boolean {
  return stateSyncEpisodeTypes.has(episode.type);
}

/** A memory, reduced to what an agent acts on. */
export function decisionView(memory: Memory): DecisionView {
  const target = memory.metadata.target;
  return {
    id: memory.id,
    kind: memory.kind,
    content: memory.content,
    confidence: memory.confidence,
    ...(typeof target === "string" ? { target } : {}),
    status: memory.status,
  };
}

/** An escalation with its times as ISO strings. */
export function escalationView(escalation: Escalation): EscalationView {
  return {
    id: escalation.id,
    namespace: escalation.namespace,
    key: escalation.key,
    reason: escalation.reason,
    contenders: escalation.contenders.map((contender) => ({
      agentId: contender.agentId,
      value: contender.value,
      at: new Date(contender.at).toISOString(),
    })),
    ...(escalation.resolution
      ? {
          resolution: {
            value: escalation.resolution.value,
            by: escalation.resolution.by,
            at: new Date(escalation.resolution.at).toISOString(),
          },
        }
      : {}),
  };
}

/** `beforeActing`'s read, as `check_shared_decisions` returns it. */
export function checkSharedDecisionsResult(read: ContextRead): CheckSharedDecisionsResult {
  return {
    decisions: read.decisions.map(decisionView),
    disputes: read.disputes.map(escalationView),
    changedSinceLastRead: read.changedSinceLastRead.map(decisionView),
    context: read.assembledContext,
  };
}

/** `decide`'s result, as `publish_decision` returns it. */
export function publishDecisionResult(result: {
  episode: Episode;
  memories: Memory[];
}): PublishDecisionResult {
  return { episodeId: result.episode.id, memories: result.memories.map(decisionView) };
}

/** A timeline without the CRDT sync episodes (unless asked for) and without payload bytes. */
export function timelineResult(
  timeline: Timeline,
  options: { includeStateUpdates?: boolean } = {},
): TimelineResult {
  const episodes = options.includeStateUpdates
    ? timeline.episodes
    : timeline.episodes.filter((episode) => !isStateSyncEpisode(episode));
  return {
    subjectId: timeline.subjectId,
    episodes: episodes.map(episodeView),
    memories: timeline.memories.map(decisionView),
  };
}

function episodeView(episode: Episode): EpisodeView {
  const { content, text, summary } = episode.payload;
  const readable = [content, text, summary].find((value) => typeof value === "string");
  return {
    id: episode.id,
    at: episode.createdAt,
    source: episode.source,
    type: episode.type,
    ...(typeof readable === "string" ? { text: readable } : {}),
  };
}

/**
 * A shared-state value as plain JSON: a `Disputed` field becomes
 * `{ disputed: true, escalationId, contenders }` so a client without our classes can still act on it.
 */
export function stateValueView(value: unknown): unknown {
  if (value instanceof Disputed) {
    return {
      disputed: true,
      escalationId: value.escalationId,
      contenders: value.contenders.map((contender) => ({
        agentId: contender.agentId,
        value: contender.value,
        at: new Date(contender.at).toISOString(),
      })),
    };
  }
  return value;
}
