import { SharedCtxError } from "../../errors.js";

/** A method was called on an `EmbeddedStore` after `close()`. */
export class StoreClosedError extends SharedCtxError {
  override readonly name: string = "StoreClosedError";
  /** The database file (or `:memory:`). */
  readonly path: string;

  constructor(path: string) {
    super(`The store at ${path} is closed`);
    this.path = path;
  }
}
