import { isOn, type RunAblation, type UnstampedEvent } from "../../agents/agent-runtime.js";
import type { KnownDecision } from "../../agents/brain.js";
import { mayOverrule } from "../../context/authority.js";
import type { MessageBus } from "../../context/message-bus.js";
import type { ClaimOutcome, Coordination } from "../../coordination/coordination.js";
import type { PlannedDecision } from "../../coordination/scenario-schema.js";
import { DecisionIds } from "./decision-ids.js";
import { ClaimCoordinator } from "./group-chat/claims.js";
import { authorityOf, ChatListener } from "./group-chat/listener.js";
import { readChat } from "./group-chat/reading.js";
import { ChatRoom, type GroupChat, type Subscription } from "./group-chat/room.js";
import { AgentMemories } from "./message-memory.js";
import { decisionData, nobodyArbitrates, resultData, reviewOfInbox } from "./messages.js";
import { resultReport } from "./read-tokens.js";

export { claimCoordinatorId } from "./group-chat/claims.js";

/** Options of {@link createGroupChatCoordination}. */
export interface GroupChatCoordinationOptions {
  bus: MessageBus;
  emit(event: UnstampedEvent): void;
  /** Scenario milliseconds since the run started. */
  now(): number;
  /** Module -> the modules it depends on: a message about one bears on work on the others. */
  dependsOn?: ReadonlyMap<string, readonly string[]>;
  /** Mechanisms switched off (the same names as the shared context's). @default none */
  ablation?: RunAblation;
  /**
   * Each member's role: what it follows from the start under topic routing (Planners every
   * decision, the Reviewer everything, a Coder the channels of its modules as it reaches them).
   * @default everyone follows everything
   */
  roles?: ReadonlyMap<string, "planner" | "coder" | "reviewer">;
}

/** What a member follows from the start, by its role (topic routing). */
function followsOf(role: "planner" | "coder" | "reviewer" | undefined): Subscription[] {
  if (role === "planner") return ["decisions"];
  if (role === "coder") return [];
  return ["*"];
}

/** The chat's shared state: the room on the bus, and what each agent remembers. */
function openGroupChat(options: GroupChatCoordinationOptions): GroupChat {
  const { bus, emit, now } = options;
  const ablation = options.ablation ?? {};
  return {
    emit,
    now,
    ablation,
    dependsOn: options.dependsOn ?? new Map<string, readonly string[]>(),
    room: new ChatRoom({ bus, emit, now, ablation }),
    memories: new AgentMemories(bus),
  };
}

/**
 * Crash-restart in the chat: the agent forgets every message it had received, then fetches the
 * room's history again as a rejoining client (its own messages too: how it learns what it built).
 */
function restartMember(chat: GroupChat, agentId: string): void {
  chat.memories.forgetOnCrash(agentId);
  chat.room.readmit(agentId);
}

/**
 * What a new decision overrules: what its author had read on the target, and what it had said on
 * it itself before; by the authority said in the messages, an agent's later word never overrules
 * a person's.
 */
function overruledBy(chat: GroupChat, agentId: string, decision: PlannedDecision): string[] {
  const known = [...chat.memories.lastRead(agentId), ...chat.memories.ownDecisions(agentId)];
  return [
    ...new Set(
      known
        .filter((earlier) => earlier.target === decision.target)
        .filter((earlier) => mayOverrule(authorityOf(decision), authorityOf(earlier)))
        .map((earlier) => earlier.id),
    ),
  ];
}

/** Says a decision to the room, with its authority; returns it as the listener hears it. */
function sayDecision(
  chat: GroupChat,
  agentId: string,
  decision: PlannedDecision,
  id: string,
): KnownDecision & { id: string } {
  const at = Math.round(chat.now());
  const overrules = overruledBy(chat, agentId, decision);
  const { authority } = decision;
  chat.memories.rememberOwn(agentId, {
    id,
    target: decision.target,
    ...(authority !== undefined ? { authority } : {}),
  });
  chat.room.say(agentId, "decision", decision.content, {
    ...decisionData(id, decision, at, overrules),
    ...(authority !== undefined ? { authority } : {}),
  });
  return { ...decision, id, by: agentId, at };
}

/** A claim, refused by the coordinator (atomic claim) or announced to the room. */
function claimInChat(
  chat: GroupChat,
  coordinator: ClaimCoordinator,
  agentId: string,
  module: string,
): ClaimOutcome {
  if (isOn(chat.ablation, "atomic claim")) {
    const answer = coordinator.ask(agentId, module);
    if (!answer.granted) return answer;
  }
  chat.emit({ type: "module-claim", agentId, module });
  chat.room.say(agentId, "claim", `Taking ${module}`, { module });
  return { granted: true };
}

/**
 * The strongest message passing we can build, mechanism by mechanism, under the names the shared
 * context's mechanisms carry (each can be switched off alone, `ablation`):
 * - `read-before-act`: every message goes to every agent; an agent reads its inbox before acting
 *   (`group-chat/reading.ts`).
 * - `bounded context` (filtered reading): a read before a module takes only the messages that
 *   name it or a module it depends on; a planning read takes the decisions; results are not read
 *   (`relevantMessages`).
 * - `history for a late joiner` (transcript replay): a joiner gets every message sent before it
 *   (`ChatRoom`, `group-chat/room.ts`).
 * - `mid-build invalidation` (a bus listener): a decision that retires the module an agent is
 *   working on (or one it depends on) interrupts the work as it is sent (`ChatListener`).
 * - `atomic claim` (a first-come coordinator): before building, an agent re-reads its inbox for
 *   claims, then asks the coordinator, which grants the first claim on a module and refuses the
 *   rest (`ClaimCoordinator`).
 * - `dispute surfaced` (contradictions flagged): two standing decisions that disagree are shown
 *   as a dispute, not as two facts (`readChat`; for work in flight, `standsInDispute`).
 * - `topic routing` (a filter before delivery, a cost mechanism): a message reaches only the
 *   members following what it is about, one channel per module (`ChatRoom.follow`).
 * A crashed member forgets its inbox and fetches the room's history again (`restartMember`).
 * What it has no way to do without becoming a shared store is the shared context's to show.
 */
export function createGroupChatCoordination(options: GroupChatCoordinationOptions): Coordination {
  const chat = openGroupChat(options);
  const listener = new ChatListener(chat);
  const coordinator = new ClaimCoordinator(chat);
  const ids = new DecisionIds();
  const invalidating = () => isOn(chat.ablation, "mid-build invalidation");
  return {
    join: (agentId) => chat.room.admit(agentId, followsOf(options.roles?.get(agentId))),
    restart: async (agentId) => restartMember(chat, agentId),
    read: async (agentId, task) => readChat(chat, agentId, task),
    publishDecision: async (agentId, decision, given) => {
      const said = sayDecision(chat, agentId, decision, ids.next(agentId, given));
      if (invalidating()) listener.hear(said);
    },
    claim: async (agentId, module) => claimInChat(chat, coordinator, agentId, module),
    watchModule: (agentId, module, onInvalid) =>
      invalidating() ? listener.watch(agentId, module, onInvalid) : () => undefined,
    reportResult: async (agentId, result) => {
      chat.room.say(agentId, "result", resultReport(result.module, agentId), resultData(result));
    },
    collectForReview: async (agentId) => reviewOfInbox(chat.memories.inbox(agentId)),
    arbitrate: nobodyArbitrates,
    restartCoordinator: async () => {
      const messages = chat.room.forget();
      const claims = coordinator.forget();
      const count = (n: number, one: string) => `${n} ${one}${n === 1 ? "" : "s"}`;
      return `the room kept its transcript (${count(messages, "message")}) and the coordinator its ${count(claims, "claim")} in memory: both are lost (an in-memory room is not a durable log)`;
    },
    close: async () => listener.close(),
  };
}
