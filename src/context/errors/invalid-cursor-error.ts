import { StoreValidationError } from "./store-validation-error.js";

/**
 * A paging cursor this store did not hand out (mangled, from another read, or from another
 * backend). Nothing was read. A `StoreValidationError` on the field `cursor`, so the server
 * answers it as every bad field: 422 `validation_error`.
 */
export class InvalidCursorError extends StoreValidationError {
  override readonly name: string = "InvalidCursorError";
  /** The cursor as given (cut to 100 characters). */
  readonly cursor: string;

  /** @param read which read's cursor was expected: `listMemories`, `changesSince`, `getTimeline` */
  constructor(cursor: unknown, read: string) {
    super("cursor", `a cursor from a previous ${read} page of this store`);
    this.cursor = String(cursor).slice(0, 100);
  }
}
