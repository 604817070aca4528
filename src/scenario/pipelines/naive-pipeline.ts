import type { UnstampedEvent } from "../../agents/agent-runtime.js";
import type { BuildResult, KnownDecision, KnownDispute } from "../../agents/brain.js";
import type { BusMessage, MessageBus } from "../../context/message-bus.js";
import type { Coordination, KnownState } from "./coordination.js";

/** Options of {@link createNaiveCoordination}. */
export interface NaiveCoordinationOptions {
  bus: MessageBus;
  emit(event: UnstampedEvent): void;
  /** Where planners and coders send their output: the Reviewer(s), as in a hand-off pipeline. */
  reviewerIds: readonly string[];
}

function decisionOf(message: BusMessage): KnownDecision | undefined {
  const { target, value } = message.data;
  if (message.topic !== "decision" || typeof target !== "string" || typeof value !== "string") {
    return undefined;
  }
  return { target, value, by: message.from, content: message.content };
}

function resultOf(message: BusMessage): BuildResult | undefined {
  const { module, tokens, ms } = message.data;
  if (message.topic !== "result" || typeof module !== "string") return undefined;
  return { module, agentId: message.from, tokens: Number(tokens), ms: Number(ms) };
}

/**
 * Decisions the Reviewer received that disagree: one target, several agents, different values.
 * Nobody in a message-passing team settles them, so they are all still open at the review.
 */
function disagreementsIn(decisions: readonly KnownDecision[]): KnownDispute[] {
  // The latest word of each agent on each target (an agent may restate its own decision).
  const latest = new Map<string, Map<string, string>>();
  for (const decision of decisions) {
    const byAgent = latest.get(decision.target) ?? new Map<string, string>();
    byAgent.set(decision.by, decision.value);
    latest.set(decision.target, byAgent);
  }
  const disputes: KnownDispute[] = [];
  for (const [target, byAgent] of latest) {
    if (new Set(byAgent.values()).size < 2) continue;
    disputes.push({
      target,
      contenders: [...byAgent].map(([agentId, value]) => ({ agentId, value })),
    });
  }
  return disputes;
}

/**
 * Message passing: each agent has its slice and the messages addressed to it. Planners and
 * Coders hand their output to the Reviewer; nobody else hears of a decision until the review.
 */
export function createNaiveCoordination(options: NaiveCoordinationOptions): Coordination {
  const { bus, emit, reviewerIds } = options;
  const send = (
    from: string,
    to: string,
    topic: string,
    content: string,
    data: Record<string, string | number>,
  ) => {
    bus.send({ from, to, topic, content, data });
    emit({ type: "message-send", from, to, content });
  };
  return {
    read: async (agentId): Promise<KnownState> => {
      const decisions = bus
        .inbox(agentId)
        .map(decisionOf)
        .filter((decision): decision is KnownDecision => decision !== undefined);
      return { decisions, disputes: [], claims: {} };
    },
    publishDecision: async (agentId, decision) => {
      for (const reviewerId of reviewerIds) {
        send(agentId, reviewerId, "decision", decision.content, {
          target: decision.target,
          value: decision.value,
        });
      }
    },
    claim: async () => ({ granted: true }),
    watchModule: () => () => undefined,
    reportResult: async (agentId, result) => {
      for (const reviewerId of reviewerIds) {
        send(agentId, reviewerId, "result", `Built ${result.module}`, {
          module: result.module,
          tokens: result.tokens,
          ms: result.ms,
        });
      }
    },
    collectForReview: async (agentId) => {
      const inbox = bus.inbox(agentId);
      const decisions = inbox
        .map(decisionOf)
        .filter((item): item is KnownDecision => item !== undefined);
      return {
        decisions,
        results: inbox.map(resultOf).filter((item): item is BuildResult => item !== undefined),
        disputes: disagreementsIn(decisions),
      };
    },
    arbitrate: async (_agentId, _choose, until) => {
      await until;
    },
    close: async () => undefined,
  };
}
