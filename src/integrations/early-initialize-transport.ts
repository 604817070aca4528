import type {
  Transport,
  TransportSendOptions,
} from "@modelcontextprotocol/sdk/shared/transport.js";
import {
  isInitializeRequest,
  type JSONRPCMessage,
  LATEST_PROTOCOL_VERSION,
  SUPPORTED_PROTOCOL_VERSIONS,
} from "@modelcontextprotocol/sdk/types.js";
import type { SharedContextServerInfo } from "./mcp-server-info.js";

type RequestId = string | number;

/**
 * A transport that answers the client's `initialize` at once, before the server exists, and hands
 * every message (that `initialize` included) to the server connected later, in order. Start-up:
 * `shared-ctx mcp` opens the store and the agent's replica (Loro, SQLite, ~100–300 ms) only after
 * the handshake is answered; every later request waits in the queue until the server is connected.
 * The server answers the replayed `initialize` too (so it knows the client's capabilities and
 * version); that second answer is not sent. The early answer is the one the server would give
 * (`info` is what it is built from; the protocol version chosen as the SDK's Server chooses it).
 */
export class EarlyInitializeTransport implements Transport {
  onclose?: (() => void) | undefined;
  onerror?: ((error: Error) => void) | undefined;
  onmessage?: ((message: JSONRPCMessage) => void) | undefined;
  readonly #inner: Transport;
  readonly #info: SharedContextServerInfo;
  readonly #queue: JSONRPCMessage[] = [];
  #connected = false;
  #closed = false;
  /** The id of the `initialize` answered early: the server's own answer to it is dropped. */
  #answered: RequestId | undefined;

  constructor(inner: Transport, info: SharedContextServerInfo) {
    this.#inner = inner;
    this.#info = info;
  }

  /** Starts reading from the inner transport; `initialize` is answered from now on. */
  async listen(): Promise<void> {
    this.#inner.onmessage = (message) => this.#receive(message);
    this.#inner.onerror = (error) => this.onerror?.(error);
    this.#inner.onclose = () => {
      this.#closed = true;
      if (this.#connected) this.onclose?.();
    };
    await this.#inner.start();
  }

  /** Called by the server's `connect`: delivers what arrived so far, then the rest as it comes. */
  async start(): Promise<void> {
    this.#connected = true;
    for (const message of this.#queue.splice(0)) this.onmessage?.(message);
    if (this.#closed) this.onclose?.();
  }

  async send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    if (this.#answered !== undefined && "id" in message && message.id === this.#answered) {
      if ("result" in message || "error" in message) {
        this.#answered = undefined;
        return;
      }
    }
    await this.#inner.send(message, options);
  }

  close(): Promise<void> {
    return this.#inner.close();
  }

  setProtocolVersion(version: string): void {
    this.#inner.setProtocolVersion?.(version);
  }

  #receive(message: JSONRPCMessage): void {
    if (this.#connected) {
      this.onmessage?.(message);
      return;
    }
    this.#queue.push(message);
    // Only the first, well-formed `initialize`: anything else is the server's to answer (or refuse).
    if (this.#answered !== undefined || !isInitializeRequest(message) || !("id" in message)) return;
    const id = message.id as RequestId;
    this.#answered = id;
    const requested = message.params.protocolVersion;
    const result = {
      protocolVersion: SUPPORTED_PROTOCOL_VERSIONS.includes(requested)
        ? requested
        : LATEST_PROTOCOL_VERSION,
      capabilities: this.#info.capabilities,
      serverInfo: this.#info.serverInfo,
      instructions: this.#info.instructions,
    };
    this.#inner.send({ jsonrpc: "2.0", id, result }).catch((error: unknown) => {
      this.onerror?.(error instanceof Error ? error : new Error(String(error)));
    });
  }
}
