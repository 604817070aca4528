import type { ClaimOutcome } from "../../../coordination/coordination.js";
import type { GroupChat } from "./room.js";

/** Who answers claims: not an agent of the team, a bot in the chat that grants the first. */
export const claimCoordinatorId = "claim-coordinator";

/**
 * Atomic claim in the chat (a first-come coordinator): before building, an agent re-reads its
 * inbox for claims, then asks the coordinator, which grants the first claim on a module and
 * refuses the rest. The asking and the answers are direct messages, outside the room.
 */
export class ClaimCoordinator {
  readonly #chat: GroupChat;
  /** Module -> the agent the coordinator granted it. */
  readonly #holders = new Map<string, string>();

  constructor(chat: GroupChat) {
    this.#chat = chat;
  }

  /** The coordinator's process restarts: the claims it had granted are gone. Returns how many. */
  forget(): number {
    const lost = this.#holders.size;
    this.#holders.clear();
    return lost;
  }

  /** `agentId` asks for `module`: granted when nobody it heard of, nor the coordinator, has it. */
  ask(agentId: string, module: string): ClaimOutcome {
    const { memories, room } = this.#chat;
    const seen = memories
      .inbox(agentId)
      .find((message) => message.topic === "claim" && message.data.module === module);
    const holder = seen?.from ?? this.#holders.get(module);
    room.tell(agentId, claimCoordinatorId, `May I take ${module}?`);
    if (holder !== undefined && holder !== agentId) {
      room.tell(claimCoordinatorId, agentId, `${module} is taken by ${holder}`);
      return { granted: false, reason: `already claimed by ${holder}`, causedBy: holder };
    }
    this.#holders.set(module, agentId);
    room.tell(claimCoordinatorId, agentId, `${module} is yours`);
    return { granted: true };
  }
}
