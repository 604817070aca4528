import { SharedCtxError } from "../../errors.js";

/** Any other failed model call (after the retries for 429 and 5xx). */
export class LlmRequestError extends SharedCtxError {
  override readonly name: string = "LlmRequestError";
  readonly statusCode: number | undefined;

  constructor(message: string, options: { statusCode?: number; cause?: unknown }) {
    super(message, { cause: options.cause });
    this.statusCode = options.statusCode;
  }
}
