import {
  type Authority,
  authorityOf,
  compareAuthority,
  defaultAuthority,
} from "../context/authority.js";
import type { Episode, Memory, Timeline } from "../context/context-store.js";
import { type DecisionEffect, statedEffectOf } from "../context/decision-effect.js";
import type { DecisionHistory, DecisionHistoryEvent } from "../context/decision-history.js";
import type { ContextRead, InvalidationNotice, MemoryDispute } from "../context/shared-context.js";
import type { Escalation } from "../crdt/shared-state.js";

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
  /**
   * `active`; `superseded` for a decision this agent read that a newer one replaced; `retracted`
   * for one its author or another agent took back (`supersededBy` is then the retraction).
   */
  status: string;
  /** The agent that published it. */
  author: string;
  /** When it was published (ISO). */
  at: string;
  /** The id of the open dispute this decision is a side of (see `disputes`). */
  disputed?: string;
  /** For a superseded decision: the one that replaced it, when it is known. */
  supersededBy?: { id: string; author: string; content: string };
  /** How it was established, when not the default (`agent`): e.g. `user` for a person's decision. */
  authority?: Authority;
  /** What it does to its target, when it says (`retire`, `keep`, `freeze`, `replace`). */
  effect?: DecisionEffect;
  /** For `replace`: what replaces the target. */
  replacement?: string;
}

/** One side of a dispute: who wrote what, when (ms since the epoch), as the library's `Contender`. */
export interface ContenderView {
  agentId: string;
  value: unknown;
  at: number;
  /** For a side that is a published decision: its memory id. */
  memoryId?: string;
  /** For a side that deleted the value (a LangGraph store item or field). */
  removed?: true;
  /** For a side that is a published decision: its authority, when not the default (`agent`). */
  authority?: Authority;
}

/**
 * A dispute, in the one shape every surface uses (the library's `Escalation` as JSON): a shared-state
 * field two agents set differently (`concurrent-register`, `kind-mismatch`), or two active
 * decisions on one target published by agents who had not read each other's
 * (`contradicting-decisions`: `namespace` is `"decisions"`, `key` the target).
 */
export interface EscalationView {
  /** Resolve a state dispute with `resolve_escalation`/`resolve(id, ...)`; a decision dispute by publishing a decision on `key`. */
  id: string;
  subjectId: string;
  namespace: string;
  key: string;
  reason: string;
  /** Every side, each with its author. */
  contenders: ContenderView[];
  /** The latest side's time (ms since the epoch). */
  raisedAt: number;
  resolution?: { value: unknown; by: string; at: number };
}

/** What changed under the agent since its last read, as the server pushed it (MCP). */
export interface NoticeView {
  /** What it is about: a decision's target, or a disputed field. */
  target?: string;
  memoryId?: string;
  reason: string;
  by: string;
}

/** The result of `check_shared_decisions`. */
export interface CheckSharedDecisionsResult {
  /**
   * What the agent must know first, in words: what changed under it since its last read, the open
   * disputes with both sides and their authors, the decisions it read that were superseded.
   */
  summary: string;
  /** Pushed to this agent since its last read (MCP): superseded or disputed things it relied on. */
  notices: NoticeView[];
  /** Open disputes: state fields and contradicting decisions. */
  disputes: EscalationView[];
  /**
   * Active decisions the context shows (ranked in for the task, named by it, changed since the last
   * read, or in dispute), then the ones this agent read before that were superseded since.
   */
  decisions: DecisionView[];
  /** Active decisions not listed (left out for the token budget); absent when none. */
  decisionsLeftOut?: number;
  /** `decisionsLeftOut` is a lower bound (the decisions not read were counted from one page). */
  decisionsLeftOutAtLeast?: true;
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
    author: authorOf(memory),
    at: memory.createdAt,
    ...authorityField(memory),
    ...statedEffectOf(memory.metadata),
  };
}

/** `{ authority }` when the memory's class is not the default, else nothing (the views stay short). */
function authorityField(memory: Memory): { authority?: Authority } {
  const authority = authorityOf(memory.metadata);
  return authority === defaultAuthority ? {} : { authority };
}

function authorOf(memory: Memory): string {
  const source = memory.metadata.source;
  return typeof source === "string" ? source : "unknown";
}

/** An escalation (or any dispute) as JSON: the library's shape, times in ms since the epoch. */
export function escalationView(escalation: Escalation): EscalationView {
  return {
    id: escalation.id,
    subjectId: escalation.subjectId,
    namespace: escalation.namespace,
    key: escalation.key,
    reason: escalation.reason,
    contenders: escalation.contenders.map((contender) => ({ ...contender })),
    raisedAt: escalation.raisedAt,
    ...(escalation.resolution ? { resolution: { ...escalation.resolution } } : {}),
  };
}

/** The id of a decision dispute: one per kind and target. */
export function decisionDisputeId(kind: string, target: string): string {
  return `decisions/${kind}/${target}`;
}

/** Two or more active decisions on one target, as a dispute. */
export function decisionDisputeView(dispute: MemoryDispute): EscalationView {
  const contenders = dispute.memories.map((memory) => ({
    agentId: authorOf(memory),
    value: memory.content,
    at: Date.parse(memory.createdAt),
    memoryId: memory.id,
    ...authorityField(memory),
  }));
  return {
    id: decisionDisputeId(dispute.kind, dispute.target),
    subjectId: dispute.memories[0]?.subjectId ?? "",
    namespace: "decisions",
    key: dispute.target,
    reason: "contradicting-decisions",
    contenders,
    raisedAt: Math.max(0, ...contenders.map((contender) => contender.at)),
  };
}

/**
 * The decisions of `read` a check lists (those `shown`, and a project's), and how many active ones
 * it leaves out: those read but not shown, plus those counted and not read (the read is the task's).
 */
function listedOf(read: ContextRead, shown: ReadonlySet<string>) {
  const listed = read.decisions.filter(
    (memory) => shown.has(memory.id) || memory.subjectId !== read.bundle.subjectId,
  );
  return { listed, leftOut: read.decisions.length - listed.length + (read.decisionsNotRead ?? 0) };
}

/** A decision of the caller's previous check no longer active: retracted, or superseded on its target. */
function supersededView(memory: Memory, read: ContextRead): DecisionView {
  const target = memory.metadata.target;
  // A retraction names what it took back; otherwise the active decision on the target replaced it.
  const retraction = (read.retractions ?? []).find(
    (candidate) => candidate.metadata.retracts === memory.id,
  );
  const replacement =
    retraction ??
    read.decisions.find(
      (candidate) =>
        candidate.kind === memory.kind &&
        typeof target === "string" &&
        candidate.metadata.target === target,
    );
  return {
    ...decisionView(memory),
    status: retraction ? "retracted" : "superseded",
    ...(replacement
      ? {
          supersededBy: {
            id: replacement.id,
            author: authorOf(replacement),
            content: replacement.content,
          },
        }
      : {}),
  };
}

/**
 * `beforeActing`'s read, as `check_shared_decisions` returns it.
 * @param previous the decisions this caller's previous check returned: those not in `read.decisions`
 *   are listed as superseded (the caller adds those still active but not read this time).
 * @param notices what was pushed to this caller since its previous check.
 */
export function checkSharedDecisionsResult(
  read: ContextRead,
  previous: readonly Memory[] = [],
  notices: readonly InvalidationNotice[] = [],
): CheckSharedDecisionsResult {
  const disputes = [
    ...read.disputes.map(escalationView),
    ...read.contradictions.map(decisionDisputeView),
  ];
  const disputedBy = new Map<string, string>();
  for (const dispute of read.contradictions) {
    for (const memory of dispute.memories) {
      disputedBy.set(memory.id, decisionDisputeId(dispute.kind, dispute.target));
    }
  }
  // What the model is shown: the decisions the context text holds (ranked in, named by the task, a
  // project's), what changed since its previous check (on a first check everything is new: the
  // text is what it reads), and every side of a dispute. The others are counted, never silently
  // dropped: the text says how many, and get_decision_history reads one.
  const changed = previous.length === 0 ? [] : read.changedSinceLastRead;
  const shown = new Set(
    [
      ...read.bundle.facts,
      ...(read.namedDecisions ?? []),
      ...changed,
      ...read.contradictions.flatMap((dispute) => dispute.memories),
    ].map((memory) => memory.id),
  );
  const { listed, leftOut } = listedOf(read, shown);
  const active = listed.map((memory) => {
    const view = decisionView(memory);
    const dispute = disputedBy.get(memory.id);
    return dispute === undefined ? view : { ...view, disputed: dispute };
  });
  const activeIds = new Set(read.decisions.map((memory) => memory.id));
  const superseded = previous
    .filter((memory) => !activeIds.has(memory.id))
    .map((memory) => supersededView(memory, read));
  const noticeViews = notices.map((notice) => ({ ...notice }));
  return {
    summary: summarize(noticeViews, disputes, superseded, read.decisions.length),
    notices: noticeViews,
    disputes,
    decisions: [...active, ...superseded],
    ...(leftOut > 0 ? { decisionsLeftOut: leftOut } : {}),
    ...(leftOut > 0 && read.decisionsLeftOutAtLeast ? { decisionsLeftOutAtLeast: true } : {}),
    changedSinceLastRead: read.changedSinceLastRead
      .filter((memory) => shown.has(memory.id))
      .map(decisionView),
    context: read.assembledContext,
  };
}

/** The first thing a model reads: what changed, what is disputed and by whom, what is stale. */
function summarize(
  notices: readonly NoticeView[],
  disputes: readonly EscalationView[],
  superseded: readonly DecisionView[],
  activeCount: number,
): string {
  const lines: string[] = [];
  if (notices.length > 0) {
    lines.push(`Changed since your last read (${notices.length}):`);
    for (const notice of notices) lines.push(`- ${notice.reason}`);
  }
  if (disputes.length > 0) {
    lines.push(
      `${disputes.length} open dispute${disputes.length === 1 ? "" : "s"}: do not build on either side until it is settled.`,
    );
    for (const dispute of disputes) {
      const sides = dispute.contenders
        .map((contender) =>
          contender.removed
            ? `${contender.agentId} deleted it`
            : `${contender.agentId}${contender.authority ? ` (${contender.authority})` : ""}: ${JSON.stringify(contender.value)}`,
        )
        .join(" vs ");
      // An agent's decision cannot settle a side of higher authority: say who can.
      const highest = dispute.contenders
        .map((contender) => contender.authority ?? defaultAuthority)
        .reduce<Authority>(
          (best, authority) => (compareAuthority(authority, best) > 0 ? authority : best),
          defaultAuthority,
        );
      const how =
        dispute.reason !== "contradicting-decisions"
          ? `resolve_escalation ${JSON.stringify(dispute.id)}`
          : highest === defaultAuthority
            ? "publish a decision on this target that settles it"
            : `only a decision of authority ${highest} or higher on this target settles it${highest === "user" ? ": ask a person" : ""}`;
      const what =
        dispute.namespace === "decisions"
          ? `decision on ${dispute.key}`
          : `${dispute.namespace}/${dispute.key}`;
      lines.push(`- ${what}: ${sides} (${how})`);
    }
  }
  if (superseded.length > 0) {
    lines.push(
      `${superseded.length} decision${superseded.length === 1 ? "" : "s"} you read before no longer hold:`,
    );
    for (const decision of superseded) {
      const by = decision.supersededBy
        ? ` ${decision.status} by ${decision.supersededBy.author}: ${JSON.stringify(decision.supersededBy.content)}`
        : ` ${decision.status}`;
      lines.push(
        `- ${JSON.stringify(decision.content)}${decision.target ? ` (${decision.target})` : ""}${by}`,
      );
    }
  }
  if (lines.length === 0) {
    return `No open disputes; nothing you read was superseded. ${activeCount} active decision${activeCount === 1 ? "" : "s"}.`;
  }
  return lines.join("\n");
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
 * A shared-state value as plain JSON: a `Disputed` (at any depth) becomes its `toJSON()`,
 * `{ disputed: "<escalation id>", contenders: [{ agentId, value, at }] }`, the one shape of a
 * disputed value everywhere.
 */
export function stateValueView(value: unknown): unknown {
  return value === undefined ? undefined : JSON.parse(JSON.stringify(value));
}

/** The result of `get_decision_history`: the library's `DecisionHistory`, the memory as a view. */
export interface DecisionHistoryResult {
  decision: DecisionView;
  status: DecisionHistory["status"];
  author: string;
  /** The ids of the decisions it replaced. */
  supersedes: string[];
  supersededBy?: DecisionHistory["supersededBy"];
  /** Every agent that declared it had read it. */
  readers: string[];
  /** Readers were looked for among the newest episodes only (see `DecisionHistory`). */
  readersWithin?: DecisionHistory["readersWithin"];
  /** Oldest first: written, read, superseded or retracted. */
  events: DecisionHistoryEvent[];
}

/** `history`'s result, as `get_decision_history` returns it. */
export function decisionHistoryResult(history: DecisionHistory): DecisionHistoryResult {
  return {
    decision: decisionView(history.memory),
    status: history.status,
    author: history.author,
    supersedes: [...history.supersedes],
    ...(history.supersededBy === undefined ? {} : { supersededBy: { ...history.supersededBy } }),
    readers: [...history.readers],
    ...(history.readersWithin === undefined ? {} : { readersWithin: { ...history.readersWithin } }),
    events: history.events.map((event) => ({ ...event })),
  };
}
