import { StatewaveConnectionError } from "./statewave-connection-error.js";

/** A request to the Statewave server got no answer within the client's `timeoutMs`, even after the retries. */
export class StatewaveTimeoutError extends StatewaveConnectionError {
  override readonly name: string = "StatewaveTimeoutError";
  readonly timeoutMs: number;

  constructor(url: string, timeoutMs: number, options?: { cause?: unknown }) {
    super(url, `no answer within ${timeoutMs} ms`, options);
    this.timeoutMs = timeoutMs;
  }
}
