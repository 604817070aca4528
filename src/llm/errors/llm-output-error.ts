import { SharedCtxError } from "../../errors.js";

/** The model's answer did not match the expected shape, even after one repair attempt. */
export class LlmOutputError extends SharedCtxError {
  override readonly name: string = "LlmOutputError";
  /** What was asked for, e.g. "module step". */
  readonly schemaName: string;
  /** The last text the model returned (truncated). */
  readonly text: string;

  constructor(options: { schemaName: string; text: string; cause?: unknown }) {
    super(
      `the model returned malformed ${options.schemaName} output twice (one repair attempt failed): ${options.text.slice(0, 120)}`,
      { cause: options.cause },
    );
    this.schemaName = options.schemaName;
    this.text = options.text.slice(0, 2000);
  }
}
