import { LlmRequestError } from "./llm-request-error.js";

/**
 * The model server could not be reached at all (connection refused, bad port, unknown host, reset
 * before any answer): no HTTP status. Usually `LLM_BASE_URL` points at the wrong place, or the
 * server (Ollama, vLLM, LM Studio, …) is not running. A subclass of `LlmRequestError`, so code that
 * handles any failed call keeps working.
 */
export class LlmConnectionError extends LlmRequestError {
  override readonly name: string = "LlmConnectionError";
  /** The base URL that was tried (`LLM_BASE_URL`, or the provider's known URL). */
  readonly url: string;
  /** The environment variable to fix first: `LLM_BASE_URL`. */
  readonly variable = "LLM_BASE_URL";
  /** Why the connection failed, as the network layer said it ("connect ECONNREFUSED 127.0.0.1:9"). */
  readonly reason: string;

  constructor(options: { url: string; reason: string; cause?: unknown }) {
    super(
      `cannot reach the model server at ${options.url} (${options.reason}): check LLM_BASE_URL ` +
        "(and LLM_MODEL's provider) and that the server is running",
      { cause: options.cause },
    );
    this.url = options.url;
    this.reason = options.reason;
  }
}
