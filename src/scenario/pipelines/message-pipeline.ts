import type { UnstampedEvent } from "../../agents/agent-runtime.js";
import type { MessageBus } from "../../context/message-bus.js";
import type { Coordination, KnownState } from "../../coordination/coordination.js";
import type { PlannedDecision } from "../../coordination/scenario-schema.js";
import { DecisionIds } from "./decision-ids.js";
import { AgentMemories } from "./message-memory.js";
import {
  activeDecisions,
  decisionData,
  decisionsIn,
  firstClaims,
  messagesTokens,
  nobodyArbitrates,
  resultData,
  reviewOfInbox,
} from "./messages.js";
import { inboxReadEvent } from "./read-event.js";
import { resultReport } from "./read-tokens.js";

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

/** What the message pipeline's steps share: the options, who has joined, what each remembers. */
interface MessageTeam extends MessageCoordinationOptions {
  members: string[];
  memories: AgentMemories;
}

/** Who hears a message, by the policy. */
function recipients(team: MessageTeam, from: string, topic: string): string[] {
  if (team.policy === "naive") return topic === "claim" ? [] : [...team.reviewerIds];
  return team.members.filter((member) => member !== from);
}

/** Sends one message to each of its recipients. */
function send(
  team: MessageTeam,
  from: string,
  topic: string,
  content: string,
  data: Record<string, string | number>,
): void {
  for (const to of recipients(team, from, topic)) {
    team.bus.send({ from, to, topic, content, data });
    team.emit({ type: "message-send", from, to, content });
  }
}

/**
 * Read-before-act, as far as messages go: the agent reads its whole inbox every time it acts;
 * the decisions nobody overruled, the first claim on each module. Two contradicting messages are
 * just two messages: no dispute is reported.
 */
function readInbox(team: MessageTeam, agentId: string, task: string): KnownState {
  const inbox = team.memories.inbox(agentId);
  const received = decisionsIn(inbox);
  team.memories.rememberRead(agentId, received);
  const claims = firstClaims(inbox);
  const tokens = messagesTokens(inbox);
  const decisions = activeDecisions(received);
  team.emit(inboxReadEvent({ agentId, task, decisions, disputes: [], tokens }));
  // Its own results were sent to others, never to itself: a restarted agent has none to read.
  return {
    decisions,
    disputes: [],
    claims,
    tokens,
    ...(team.memories.hasRestarted(agentId) ? { ownBuilds: [] } : {}),
  };
}

/**
 * What a new decision overrules: what its author had read from others on the target, and what it
 * had said on it before.
 */
function overruledBy(team: MessageTeam, agentId: string, target: string): string[] {
  return [
    ...team.memories
      .lastRead(agentId)
      .filter((known) => known.target === target && known.by !== agentId),
    ...team.memories.ownDecisions(agentId).filter((own) => own.target === target),
  ].map((known) => known.id);
}

function publish(team: MessageTeam, agentId: string, decision: PlannedDecision, id: string): void {
  const overrules = overruledBy(team, agentId, decision.target);
  team.memories.rememberOwn(agentId, { id, target: decision.target });
  const data = decisionData(id, decision, Math.round(team.now()), overrules);
  send(team, agentId, "decision", decision.content, data);
}

/**
 * Message passing, as naive or as strong as it gets (`policy`). What messages cannot do, this does
 * not do: a claim is announced but never refused (two announcements cross), work in flight is
 * never interrupted, a late joiner gets no history, and two contradicting messages are just two
 * messages (no dispute is reported to the agents).
 */
export function createMessageCoordination(options: MessageCoordinationOptions): Coordination {
  const team: MessageTeam = { ...options, members: [], memories: new AgentMemories(options.bus) };
  const ids = new DecisionIds();
  return {
    join: (agentId) => {
      if (!team.members.includes(agentId)) team.members.push(agentId);
    },
    // Crash-restart: nothing said before the crash reaches it again (no history to replay).
    restart: async (agentId) => {
      team.memories.forgetOnCrash(agentId);
    },
    read: async (agentId, task) => readInbox(team, agentId, task),
    publishDecision: async (agentId, decision, given) => {
      publish(team, agentId, decision, ids.next(agentId, given));
    },
    claim: async (agentId, module) => {
      send(team, agentId, "claim", `Taking ${module}`, { module });
      return { granted: true };
    },
    watchModule: () => () => undefined,
    reportResult: async (agentId, result) => {
      send(team, agentId, "result", resultReport(result.module, agentId), resultData(result));
    },
    collectForReview: async (agentId) => reviewOfInbox(team.memories.inbox(agentId)),
    arbitrate: nobodyArbitrates,
    // No coordinator to restart: a delivered message stays in its recipient's inbox.
    restartCoordinator: async () =>
      "plain message passing has no coordinator: delivered messages stay in the inboxes, nothing else was kept",
    close: async () => undefined,
  };
}
