/**
 * The naive pipeline's only channel: point-to-point messages. An agent sees the messages
 * addressed to it and nothing else; there is no shared, ranked view of what has been decided.
 */

/** One message on the bus. */
export interface BusMessage {
  /** Position on the bus, from 1. */
  readonly sequence: number;
  readonly from: string;
  readonly to: string;
  /** What the message is for: "assignment", "decision", "result", … */
  readonly topic: string;
  readonly content: string;
  /** Structured content the receiver may use (a decision's target and value, a build's cost). */
  readonly data: Readonly<Record<string, string | number>>;
}

/** What `send` takes. */
export type BusMessageInput = Omit<BusMessage, "sequence" | "data"> & {
  data?: Readonly<Record<string, string | number>>;
};

/** An in-process message bus with per-agent inboxes. */
export class MessageBus {
  readonly #messages: BusMessage[] = [];
  readonly #listeners = new Set<(message: BusMessage) => void>();

  /** Delivers a message to its recipient's inbox and tells every listener. */
  send(input: BusMessageInput): BusMessage {
    const message: BusMessage = {
      ...input,
      data: input.data ?? {},
      sequence: this.#messages.length + 1,
    };
    this.#messages.push(message);
    for (const listener of [...this.#listeners]) listener(message);
    return message;
  }

  /** The messages addressed to `agentId`, oldest first. */
  inbox(agentId: string): BusMessage[] {
    return this.#messages.filter((message) => message.to === agentId);
  }

  /** Every message sent so far, oldest first. */
  all(): BusMessage[] {
    return [...this.#messages];
  }

  /** Calls `listener` for each new message; returns the function that stops it. */
  onMessage(listener: (message: BusMessage) => void): () => void {
    this.#listeners.add(listener);
    return () => {
      this.#listeners.delete(listener);
    };
  }
}
