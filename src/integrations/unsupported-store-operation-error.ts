import { SharedCtxError } from "../errors.js";

/** A LangGraph store operation that shared state cannot honour without losing its guarantees. */
export class UnsupportedStoreOperationError extends SharedCtxError {
  override readonly name: string = "UnsupportedStoreOperationError";
  /** The operation refused, e.g. `"nodeStore"` without a store. */
  readonly operation: string;

  constructor(operation: string, message: string) {
    super(message);
    this.operation = operation;
  }
}
