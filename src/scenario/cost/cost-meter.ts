import type { ContextStore } from "../../context/context-store.js";
import type { BusMessage } from "../../context/message-bus.js";
import { estimateTokens } from "../pipelines/read-tokens.js";
import type { AgentCost, RunCost, ScenarioEvent } from "../scenario-events.js";
import { countedStore } from "./counted-store.js";

/**
 * The one cost rule, applied here and nowhere else, to every mode alike (docs/runner.md, *Cost*):
 * - every token delivered into an agent's context is charged when it is delivered: each message on
 *   the bus (a decision, a claim, a result, a transcript replayed to a joiner, a coordinator's
 *   answer), each context bundle a store read hands over, each re-read that checks work in flight,
 *   each message a listener pushes into running work (an interrupt);
 * - a read of an inbox is not charged again: its messages were charged when they arrived; a
 *   filter therefore saves only where it runs before delivery (topic routing, a narrower query);
 * - every coordination operation is counted: each message delivered, each store request.
 * A message an agent shows itself (its own words echoed back) is not a delivery: it is already in
 * its context.
 */
export class CostMeter {
  readonly #byAgent = new Map<string, { tokens: number; messages: number; requests: number }>();
  /** Store requests made for no agent (the project's inventory, set up before the run). */
  #setupRequests = 0;

  /** Charges one bus message to its recipient (bound: pass it as a bus listener). */
  readonly chargeMessage = (message: BusMessage): void => {
    if (message.from === message.to) return;
    const cost = this.#of(message.to);
    cost.messages += 1;
    cost.tokens += estimateTokens(message.content);
  };

  /**
   * `store`, with every request counted against `agentId` (null: the run's setup). Requests
   * made through the returned store are what the agent's coordination asked of the store.
   */
  storeFor(store: ContextStore, agentId: string | null): ContextStore {
    return countedStore(store, () => {
      if (agentId === null) this.#setupRequests += 1;
      else this.#of(agentId).requests += 1;
    });
  }

  /**
   * The run's cost: the messages and store requests counted as they happened, and the reads the
   * events record (every read a store handed over, every interrupt and re-read; not an inbox read).
   */
  costOf(events: readonly ScenarioEvent[]): RunCost {
    const byAgent = new Map<string, { tokens: number; messages: number; requests: number }>();
    for (const [agentId, cost] of this.#byAgent) byAgent.set(agentId, { ...cost });
    for (const event of events) {
      if (event.type !== "context-read" || event.source === "inbox") continue;
      const cost = byAgent.get(event.agentId) ?? { tokens: 0, messages: 0, requests: 0 };
      cost.tokens += event.tokens ?? 0;
      byAgent.set(event.agentId, cost);
    }
    const agents: Record<string, AgentCost> = {};
    const total = { deliveredTokens: 0, messagesDelivered: 0, storeRequests: this.#setupRequests };
    for (const agentId of [...byAgent.keys()].sort()) {
      const cost = byAgent.get(agentId) ?? { tokens: 0, messages: 0, requests: 0 };
      agents[agentId] = {
        deliveredTokens: cost.tokens,
        messagesDelivered: cost.messages,
        storeRequests: cost.requests,
      };
      total.deliveredTokens += cost.tokens;
      total.messagesDelivered += cost.messages;
      total.storeRequests += cost.requests;
    }
    return { ...total, byAgent: agents };
  }

  #of(agentId: string) {
    let cost = this.#byAgent.get(agentId);
    if (cost === undefined) {
      cost = { tokens: 0, messages: 0, requests: 0 };
      this.#byAgent.set(agentId, cost);
    }
    return cost;
  }
}
