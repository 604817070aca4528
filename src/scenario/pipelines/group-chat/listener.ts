import type { KnownDecision } from "../../../agents/brain.js";
import { type Authority, compareAuthority, defaultAuthority } from "../../../context/authority.js";
import type { InvalidationNotice } from "../../../coordination/coordination.js";
import { decisionLines, inboxReadEvent } from "../read-event.js";
import { estimateTokens } from "../read-tokens.js";
import { bearingOn } from "../task-modules.js";
import { standsInDispute } from "./reading.js";
import type { GroupChat } from "./room.js";

const retiringValues = new Set(["deprecate", "replace"]);

interface Watcher {
  agentId: string;
  module: string;
  onInvalid(notice: InvalidationNotice): void;
}

/** A decision's authority: the one its message says, else an agent's. */
export function authorityOf(decision: { authority?: Authority }): Authority {
  return decision.authority ?? defaultAuthority;
}

/**
 * Mid-build invalidation in the chat (a bus listener): a decision that retires the module an agent
 * is working on (or one it depends on) interrupts the work as it is sent, unless the agent had
 * read a decision of higher authority on it. Contradictions flagged reach work in flight too:
 * when the retiring decision stands in dispute with another, the work is held for the lead's
 * ruling instead of cut short.
 */
export class ChatListener {
  readonly #chat: GroupChat;
  readonly #watchers = new Set<Watcher>();

  constructor(chat: GroupChat) {
    this.#chat = chat;
  }

  /** Watches `module` for `agentId` until the returned function is called. */
  watch(agentId: string, module: string, onInvalid: (notice: InvalidationNotice) => void) {
    const watcher: Watcher = { agentId, module, onInvalid };
    this.#watchers.add(watcher);
    return () => {
      this.#watchers.delete(watcher);
    };
  }

  /** A decision was sent to the room: the work it retires is interrupted. */
  hear(decision: KnownDecision & { id: string }): void {
    if (!retiringValues.has(decision.value)) return;
    for (const watcher of [...this.#watchers]) {
      if (watcher.agentId === decision.by) continue;
      if (!bearingOn(watcher.module, this.#chat.dependsOn).has(decision.target)) continue;
      if (this.#outranked(watcher.agentId, decision)) continue;
      this.#interrupt(watcher, decision);
    }
  }

  /** Stops every watch. */
  close(): void {
    this.#watchers.clear();
  }

  /** Whether the agent had read a decision on `decision`'s target of higher authority. */
  #outranked(agentId: string, decision: KnownDecision): boolean {
    return this.#chat.memories
      .lastRead(agentId)
      .some(
        (known) =>
          known.target === decision.target &&
          compareAuthority(authorityOf(known), authorityOf(decision)) > 0,
      );
  }

  #interrupt(watcher: Watcher, decision: KnownDecision & { id: string }): void {
    // The listener pushes the one message that contradicts the work into the running agent's
    // context: a delivery of its own (`interrupt`), charged like any other.
    this.#chat.emit(
      inboxReadEvent({
        agentId: watcher.agentId,
        task: `Build module ${watcher.module}`,
        decisions: [decision],
        disputes: [],
        tokens: estimateTokens(decisionLines([decision]).join("\n")),
        source: "interrupt",
      }),
    );
    watcher.onInvalid({
      reason: `deprecated by ${decision.by}: ${decision.content}`,
      by: decision.by,
      ...(standsInDispute(this.#chat, watcher.agentId, watcher.module) ? { disputed: true } : {}),
    });
  }
}
