import { SharedCtxError } from "../../errors.js";

/** The JSON a hook received on stdin is not what the harness documents. Names the field. */
export class HookInputError extends SharedCtxError {
  override readonly name: string = "HookInputError";
  /** The offending field of the hook input (`tool_input`, `session_id`); `""` for the whole input. */
  readonly field: string;

  constructor(field: string, problem: string, options?: { cause?: unknown }) {
    super(`hook input${field ? ` field ${field}` : ""}: ${problem}`, options);
    this.field = field;
  }
}
