import { SharedCtxError } from "../../../errors.js";

/**
 * The Statewave server could not be reached (refused, reset, DNS, timed out), even after the
 * retries. The message names the URL and says how to get a server running.
 */
export class StatewaveConnectionError extends SharedCtxError {
  override readonly name: string = "StatewaveConnectionError";
  /** The base URL the client was configured with. */
  readonly url: string;

  constructor(url: string, reason: string, options?: { cause?: unknown }) {
    super(
      `Cannot reach the Statewave server at ${url}: ${reason}. ` +
        "Start one with `npx shared-ctx serve`, or check the URL (--url or STATEWAVE_URL).",
      options,
    );
    this.url = url;
  }
}
