import { SharedCtxError } from "../../errors.js";

/**
 * Input to a `ContextStore` method broke a rule (a missing or over-long field, a batch over 100,
 * a limit out of range). Nothing was written. The server maps it to 422 `validation_error`.
 */
export class StoreValidationError extends SharedCtxError {
  override readonly name: string = "StoreValidationError";
  /** The offending field, as a path: `subjectId`, `episodes[3].payload`, `limit`. */
  readonly field: string;
  /** What the field must be, in words: `a string of 1..256 characters`. */
  readonly expected: string;

  constructor(field: string, expected: string) {
    super(`Invalid ${field}: expected ${expected}`);
    this.field = field;
    this.expected = expected;
  }
}
