import { SharedCtxError } from "../../errors.js";

/** The model server refused the API key (401/403). */
export class LlmAuthError extends SharedCtxError {
  override readonly name: string = "LlmAuthError";
  readonly statusCode: number;
  /** The environment variable to fix: `LLM_API_KEY`. */
  readonly variable = "LLM_API_KEY";
  readonly url: string;

  constructor(options: { statusCode: number; url: string; cause?: unknown }) {
    super(
      `the model server at ${options.url} refused the API key (HTTP ${options.statusCode}): check LLM_API_KEY`,
      { cause: options.cause },
    );
    this.statusCode = options.statusCode;
    this.url = options.url;
  }
}
