import { SharedCtxError } from "../../errors.js";

/** The model did not answer in time. */
export class LlmTimeoutError extends SharedCtxError {
  override readonly name: string = "LlmTimeoutError";
  readonly timeoutMs: number;

  constructor(timeoutMs: number, options?: { cause?: unknown }) {
    super(
      `the model did not answer within ${timeoutMs} ms (raise LLM_TIMEOUT_MS or check LLM_BASE_URL)`,
      options,
    );
    this.timeoutMs = timeoutMs;
  }
}
