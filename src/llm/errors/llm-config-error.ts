import { SharedCtxError } from "../../errors.js";

/** `LLM_MODEL`, `LLM_API_KEY` or `LLM_BASE_URL` is missing or malformed; the message names the variable. */
export class LlmConfigError extends SharedCtxError {
  override readonly name: string = "LlmConfigError";
  /** The environment variable to fix. */
  readonly variable: string;

  constructor(variable: string, message: string) {
    super(message);
    this.variable = variable;
  }
}
