import type { UnstampedEvent } from "../../agents/agent-runtime.js";
import type { BuildResult, KnownDecision, KnownDispute } from "../../agents/brain.js";
import { isAuthority } from "../../context/authority.js";
import type { BusMessage, MessageBus } from "../../context/message-bus.js";
import type { Coordination, KnownState } from "../../coordination/coordination.js";
import { estimateTokens, resultReport } from "./read-tokens.js";

/**
 * Who receives what:
 * - `naive`: isolated agents; Planners and Coders report to the Reviewer(s) only, as in a hand-off
 *   pipeline. Nobody else hears of a decision until the review.
 * - `broadcast`: every decision, claim and result goes to every agent that has joined, the way a
 *   group chat does it. An agent that joins later never receives what was said before it joined.
 */
export type MessagePolicy = "naive" | "broadcast";

/** Options of {@link createMessageCoordination}. */
export interface MessageCoordinationOptions {
  policy: MessagePolicy;
  bus: MessageBus;
  emit(event: UnstampedEvent): void;
  /** The Reviewer(s): every policy reports to them. */
  reviewerIds: readonly string[];
  /** Scenario milliseconds since the run started: when a decision was published. */
  now(): number;
}

/** A decision as carried by a message, with what its author had seen when deciding. */
export interface DecisionMessage extends KnownDecision {
  id: string;
  /** Decisions on the same target its author had read: the new one overrules them. */
  supersedes: string[];
}

/** The decision a message carries, if it carries one. */
export function decisionOf(message: BusMessage): DecisionMessage | undefined {
  const { target, value, id, supersedes, at, replacement, authority } = message.data;
  if (message.topic !== "decision" || typeof target !== "string" || typeof value !== "string") {
    return undefined;
  }
  return {
    id: String(id),
    target,
    value,
    by: message.from,
    content: message.content,
    at: Number(at),
    supersedes: typeof supersedes === "string" && supersedes !== "" ? supersedes.split(",") : [],
    ...(typeof replacement === "string" ? { replacement } : {}),
    // Said in the message ("a person decided"), so a chat honours it too (group-chat does).
    ...(isAuthority(authority) ? { authority } : {}),
  };
}

/** The build a message reports, if it reports one. */
export function resultOf(message: BusMessage): BuildResult | undefined {
  const { module, tokens, ms } = message.data;
  if (message.topic !== "result" || typeof module !== "string") return undefined;
  return { module, agentId: message.from, tokens: Number(tokens), ms: Number(ms) };
}

/** Who claimed each module first, by the claim messages among `messages` (in their order). */
export function firstClaims(messages: readonly BusMessage[]): Record<string, string> {
  const claims: Record<string, string> = {};
  for (const message of messages) {
    const module = message.data.module;
    if (message.topic === "claim" && typeof module === "string" && !Object.hasOwn(claims, module)) {
      claims[module] = message.from;
    }
  }
  return claims;
}

/** One of each decision (a transcript replayed or a message read twice is one decision). */
export function uniqueById(decisions: readonly DecisionMessage[]): DecisionMessage[] {
  const byId = new Map<string, DecisionMessage>();
  for (const decision of decisions) byId.set(decision.id, decision);
  return [...byId.values()];
}

/** The decisions nobody overruled: a later decision overrules only those its author had read. */
export function activeDecisions(decisions: readonly DecisionMessage[]): KnownDecision[] {
  const overruled = new Set(decisions.flatMap((decision) => decision.supersedes));
  return uniqueById(decisions)
    .filter((decision) => !overruled.has(decision.id))
    .map(({ supersedes: _supersedes, ...decision }) => decision);
}

/**
 * Active decisions that disagree: one target, several agents, different values, none of them
 * aware of the other. Nobody in a message-passing team settles them, so they stay open.
 */
export function disagreementsIn(decisions: readonly KnownDecision[]): KnownDispute[] {
  const byTarget = new Map<string, Map<string, string>>();
  for (const decision of decisions) {
    const byAgent = byTarget.get(decision.target) ?? new Map<string, string>();
    byAgent.set(decision.by, decision.value);
    byTarget.set(decision.target, byAgent);
  }
  const disputes: KnownDispute[] = [];
  for (const [target, byAgent] of byTarget) {
    if (new Set(byAgent.values()).size < 2) continue;
    disputes.push({
      target,
      contenders: [...byAgent].map(([agentId, value]) => ({ agentId, value })),
    });
  }
  return disputes;
}

/**
 * Message passing, as naive or as strong as it gets (`policy`). What messages cannot do, this does
 * not do: a claim is announced but never refused (two announcements cross), work in flight is
 * never interrupted, a late joiner gets no history, and two contradicting messages are just two
 * messages (no dispute is reported to the agents).
 */
export function createMessageCoordination(options: MessageCoordinationOptions): Coordination {
  const { policy, bus, emit, reviewerIds, now } = options;
  const members: string[] = [];
  /** The decisions each agent had read at its latest read: what its next decision overrules. */
  const lastRead = new Map<string, DecisionMessage[]>();
  const decisionCounts = new Map<string, number>();
  /** Each agent's own decisions so far: a later one on the same target overrules them. */
  const ownDecisions = new Map<string, Array<{ id: string; target: string }>>();
  /** Agent -> the last bus message it had received when it restarted: it remembers none of those. */
  const forgotten = new Map<string, number>();
  const restarted = new Set<string>();
  const inboxOf = (agentId: string): BusMessage[] =>
    bus.inbox(agentId).filter((message) => message.sequence > (forgotten.get(agentId) ?? 0));

  const recipients = (from: string, topic: string): string[] => {
    if (policy === "naive") return topic === "claim" ? [] : [...reviewerIds];
    return members.filter((member) => member !== from);
  };
  const send = (
    from: string,
    topic: string,
    content: string,
    data: Record<string, string | number>,
  ) => {
    for (const to of recipients(from, topic)) {
      bus.send({ from, to, topic, content, data });
      emit({ type: "message-send", from, to, content });
    }
  };
  const decisionsIn = (agentId: string): DecisionMessage[] =>
    uniqueById(
      inboxOf(agentId)
        .map(decisionOf)
        .filter((decision): decision is DecisionMessage => decision !== undefined),
    );

  return {
    join: (agentId) => {
      if (!members.includes(agentId)) members.push(agentId);
    },
    // Nothing said before the crash reaches it again: plain messages have no history to replay.
    restart: async (agentId) => {
      forgotten.set(agentId, bus.all().length);
      lastRead.delete(agentId);
      restarted.add(agentId);
    },
    read: async (agentId, task): Promise<KnownState> => {
      const inbox = inboxOf(agentId);
      const received = decisionsIn(agentId);
      lastRead.set(agentId, received);
      const claims = firstClaims(inbox);
      // A group-chat agent reads the whole conversation every time it acts.
      const tokens = estimateTokens(
        inbox.map((message) => `${message.from}: ${message.content}`).join("\n"),
      );
      const decisions = activeDecisions(received);
      emit({
        type: "context-read",
        agentId,
        task,
        memoryIds: [],
        decisions: decisions.map((decision) => `${decision.by}: ${decision.content}`),
        decisionIds: decisions.flatMap((decision) =>
          decision.id === undefined ? [] : [decision.id],
        ),
        disputes: [],
        tokens,
        source: "inbox",
      });
      // Its own results were sent to others, never to itself: a restarted agent has none to read.
      return {
        decisions,
        disputes: [],
        claims,
        tokens,
        ...(restarted.has(agentId) ? { ownBuilds: [] } : {}),
      };
    },
    publishDecision: async (agentId, decision, given) => {
      const count = (decisionCounts.get(agentId) ?? 0) + 1;
      decisionCounts.set(agentId, count);
      const decisionId = given ?? `${agentId}#${count}`;
      // What its author had read from others on the target, and what it had said on it before.
      const overrules = [
        ...(lastRead.get(agentId) ?? []).filter(
          (known) => known.target === decision.target && known.by !== agentId,
        ),
        ...(ownDecisions.get(agentId) ?? []).filter((own) => own.target === decision.target),
      ].map((known) => known.id);
      ownDecisions.set(agentId, [
        ...(ownDecisions.get(agentId) ?? []),
        { id: decisionId, target: decision.target },
      ]);
      send(agentId, "decision", decision.content, {
        id: decisionId,
        target: decision.target,
        value: decision.value,
        at: Math.round(now()),
        supersedes: overrules.join(","),
        ...(decision.by !== undefined ? { replacement: decision.by } : {}),
      });
    },
    claim: async (agentId, module) => {
      send(agentId, "claim", `Taking ${module}`, { module });
      return { granted: true };
    },
    watchModule: () => () => undefined,
    reportResult: async (agentId, result) => {
      send(agentId, "result", resultReport(result.module, agentId), {
        module: result.module,
        tokens: result.tokens,
        ms: result.ms,
      });
    },
    collectForReview: async (agentId) => {
      const decisions = activeDecisions(decisionsIn(agentId));
      return {
        decisions,
        results: inboxOf(agentId)
          .map(resultOf)
          .filter((item): item is BuildResult => item !== undefined),
        disputes: disagreementsIn(decisions),
      };
    },
    arbitrate: async (_agentId, _choose, until) => {
      await until;
    },
    close: async () => undefined,
  };
}
