import { SharedCtxError } from "../../errors.js";

/** The store a command was pointed at could not be opened; the message names it. */
export class StoreOpenError extends SharedCtxError {
  override readonly name: string = "StoreOpenError";
  /** The file path or the server URL. */
  readonly location: string;

  constructor(options: { location: string; reason: string; cause?: unknown }) {
    super(`cannot open the store at ${options.location}: ${options.reason}`, {
      cause: options.cause,
    });
    this.location = options.location;
  }
}
