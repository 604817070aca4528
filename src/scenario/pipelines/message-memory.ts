import type { Authority } from "../../context/authority.js";
import type { BusMessage, MessageBus } from "../../context/message-bus.js";
import type { DecisionMessage } from "./messages.js";

/** One of an agent's own decisions, as far as overruling it goes. */
export interface OwnDecision {
  id: string;
  target: string;
  authority?: Authority;
}

/**
 * What each agent of a message mode holds in memory, and what a crash makes it forget: the
 * messages it has received since its last restart, the decisions it had read, its own decisions
 * so far (a later decision of its own on the same target overrules them).
 */
export class AgentMemories {
  readonly #bus: MessageBus;
  /** Agent -> the last bus message it had received when it restarted: it remembers none of them. */
  readonly #forgotten = new Map<string, number>();
  readonly #restarted = new Set<string>();
  /** The decisions each agent had read: what its next decision overrules. */
  readonly #lastRead = new Map<string, DecisionMessage[]>();
  readonly #own = new Map<string, OwnDecision[]>();

  constructor(bus: MessageBus) {
    this.#bus = bus;
  }

  /** The messages `agentId` received and still remembers (none from before its last restart). */
  inbox(agentId: string): BusMessage[] {
    const forgotten = this.#forgotten.get(agentId) ?? 0;
    return this.#bus.inbox(agentId).filter((message) => message.sequence > forgotten);
  }

  /**
   * The agent crashed: it forgets every message it had received and what it had read. Its own
   * decisions stay on record: one it makes after the restart still overrules them.
   */
  forgetOnCrash(agentId: string): void {
    this.#forgotten.set(agentId, this.#bus.all().length);
    this.#lastRead.delete(agentId);
    this.#restarted.add(agentId);
  }

  /** Whether `agentId` has restarted at least once. */
  hasRestarted(agentId: string): boolean {
    return this.#restarted.has(agentId);
  }

  /** The decisions `agentId` had read, as its latest read left them. */
  lastRead(agentId: string): readonly DecisionMessage[] {
    return this.#lastRead.get(agentId) ?? [];
  }

  rememberRead(agentId: string, decisions: DecisionMessage[]): void {
    this.#lastRead.set(agentId, decisions);
  }

  /** `agentId`'s own decisions so far, oldest first. */
  ownDecisions(agentId: string): readonly OwnDecision[] {
    return this.#own.get(agentId) ?? [];
  }

  rememberOwn(agentId: string, decision: OwnDecision): void {
    this.#own.set(agentId, [...this.ownDecisions(agentId), decision]);
  }
}
