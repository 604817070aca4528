import { SharedCtxError } from "../../../errors.js";

/**
 * The Postgres server behind a `PostgresStore` could not be reached or refused us (down, wrong
 * host or port, bad password, no such database). Names the server (password hidden) and the fix.
 */
export class PostgresConnectionError extends SharedCtxError {
  override readonly name: string = "PostgresConnectionError";
  /** The database URL, password replaced by `***`. */
  readonly url: string;
  /** What to check, in words. */
  readonly hint: string;

  constructor(url: string, reason: string, hint: string, options?: { cause?: unknown }) {
    super(`Cannot use the Postgres database at ${url}: ${reason}. ${hint}`, options);
    this.url = url;
    this.hint = hint;
  }
}
