import { SharedCtxError } from "../../errors.js";

/**
 * A promotion was asked for something it cannot do: an `--approve`/`--reject` id that is not an
 * item of the plan, an id both approved and rejected, or a run promoted into itself. Nothing was
 * written.
 */
export class PromotionInputError extends SharedCtxError {
  override readonly name: string = "PromotionInputError";
  /** The offending input: `approve`, `reject`, `into`. */
  readonly field: string;
  /** The ids that were wrong, when ids were. */
  readonly ids: readonly string[];

  constructor(field: string, message: string, options: { ids?: readonly string[] } = {}) {
    super(message);
    this.field = field;
    this.ids = options.ids ?? [];
  }
}
