import { isOn } from "../../../agents/agent-runtime.js";
import type { BusMessage } from "../../../context/message-bus.js";
import type { KnownState } from "../../../coordination/coordination.js";
import {
  activeDecisions,
  type DecisionMessage,
  decisionsIn,
  disagreementsIn,
  firstClaims,
  messagesTokens,
  uniqueById,
} from "../messages.js";
import { inboxReadEvent } from "../read-event.js";
import { highestAuthority } from "../statewave/read-context.js";
import { bearingOn, moduleOfTask } from "../task-modules.js";
import type { GroupChat } from "./room.js";

/**
 * Bounded context (filtered reading): what a read takes from the inbox. Everything when it is
 * off; else, before a module, the decisions and claims that name it or a module it depends on; a
 * planning read takes the decisions; results are not read. A restarted agent also takes its own
 * result on the module: it no longer remembers building it.
 */
export function relevantMessages(
  chat: GroupChat,
  agentId: string,
  inbox: readonly BusMessage[],
  task: string,
): BusMessage[] {
  if (!isOn(chat.ablation, "bounded context")) return [...inbox];
  const module = moduleOfTask(task);
  if (module === undefined) return inbox.filter((message) => message.topic === "decision");
  const names = bearingOn(module, chat.dependsOn);
  const restarted = chat.memories.hasRestarted(agentId);
  return inbox.filter((message) => {
    const about = message.topic === "decision" ? message.data.target : message.data.module;
    const ownResult = message.topic === "result" && message.from === agentId && restarted;
    return (
      (message.topic === "decision" || message.topic === "claim" || ownResult) &&
      names.has(String(about))
    );
  });
}

/**
 * The decisions an agent may use, mechanism by mechanism: those made before it joined reach it
 * through the transcript (`history for a late joiner`), the others through its reads
 * (`read-before-act`).
 */
export function usableDecisions(
  chat: GroupChat,
  agentId: string,
  decisions: readonly DecisionMessage[],
): DecisionMessage[] {
  const joined = chat.room.joinedAt(agentId);
  const history = isOn(chat.ablation, "history for a late joiner");
  const fresh = isOn(chat.ablation, "read-before-act");
  return decisions.filter((decision) => ((decision.at ?? 0) < joined ? history : fresh));
}

/** How many decisions the inbox holds (a decision replayed twice is one). */
function decisionCountIn(inbox: readonly BusMessage[]): number {
  return new Set(
    inbox.flatMap((message) => (message.topic === "decision" ? [String(message.data.id)] : [])),
  ).size;
}

/** The modules a restarted agent's own results in `taken` say it built; undefined for others. */
function ownBuildsIn(
  chat: GroupChat,
  agentId: string,
  taken: readonly BusMessage[],
): string[] | undefined {
  if (!chat.memories.hasRestarted(agentId)) return undefined;
  return taken.flatMap((message) =>
    message.topic === "result" && message.from === agentId ? [String(message.data.module)] : [],
  );
}

/**
 * Read-before-act in the chat: the agent reads its inbox (filtered or whole), keeps the decisions
 * it may use, and learns the first claims, the decisions that stand and the disputes among them.
 */
export function readChat(chat: GroupChat, agentId: string, task: string): KnownState {
  const { ablation, memories } = chat;
  // Topic routing: before a module, the agent joins its channels (and those it depends on).
  const module = moduleOfTask(task);
  if (module !== undefined) chat.room.follow(agentId, bearingOn(module, chat.dependsOn));
  const inbox = memories.inbox(agentId);
  const taken = relevantMessages(chat, agentId, inbox, task);
  const received = usableDecisions(chat, agentId, decisionsIn(taken));
  memories.rememberRead(agentId, uniqueById([...memories.lastRead(agentId), ...received]));
  const claims = isOn(ablation, "read-before-act") ? firstClaims(taken) : {};
  // As on the store: a decision outranked on its target is not acted on (nor disputed over).
  const decisions = highestAuthority(activeDecisions(received));
  const disputes = isOn(ablation, "dispute surfaced") ? disagreementsIn(decisions) : [];
  const tokens = messagesTokens(taken);
  chat.emit(
    inboxReadEvent({
      agentId,
      task,
      decisions,
      disputes,
      tokens,
      // Filtered reading says what it left out: the decisions in the inbox it did not take.
      // With topic routing, a decision never delivered to it is left out too: the room's count.
      decisionsLeftOut: Math.max(
        0,
        Math.max(decisionCountIn(inbox), chat.room.decisionCount()) - received.length,
      ),
    }),
  );
  const ownBuilds = ownBuildsIn(chat, agentId, taken);
  return { decisions, disputes, claims, tokens, ...(ownBuilds ? { ownBuilds } : {}) };
}

/**
 * Dispute surfaced, for work in flight: whether two standing decisions the agent may use disagree
 * on `module` or a module it depends on (the listener then holds the work instead of cutting it).
 */
export function standsInDispute(chat: GroupChat, agentId: string, module: string): boolean {
  if (!isOn(chat.ablation, "dispute surfaced")) return false;
  const known = usableDecisions(chat, agentId, decisionsIn(chat.memories.inbox(agentId)));
  const bearing = bearingOn(module, chat.dependsOn);
  return disagreementsIn(activeDecisions(known)).some((dispute) => bearing.has(dispute.target));
}
