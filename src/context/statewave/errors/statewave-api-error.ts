import { SharedCtxError } from "../../../errors.js";

/**
 * A Statewave server answered with an error status. Same name, fields, constructor and message
 * (`[422] validation_error: Request validation failed`) as the official SDK's error: `code` comes
 * from the envelope `{"error":{"code",…}}`, or is `"unknown"` when the body has no envelope (e.g.
 * v0.7.1's bare `{"error":"Job not found or expired"}`, contract §3).
 */
export class StatewaveAPIError extends SharedCtxError {
  override readonly name: string = "StatewaveAPIError";
  /** The HTTP status: 422, 404, 401, … */
  readonly statusCode: number;
  /** `validation_error`, `missing_api_key`, `http_error`, `not_found`, … or `unknown`. */
  readonly code: string;
  /** pydantic-style validation details for a 422. */
  readonly details?: unknown;
  /** The server's request id, for its logs: `error.request_id` or the `X-Request-ID` header. */
  readonly requestId?: string;

  constructor(
    statusCode: number,
    code: string,
    message: string,
    details?: unknown,
    requestId?: string,
    options: { cause?: unknown } = {},
  ) {
    super(`[${statusCode}] ${code}: ${message}`, { cause: options.cause });
    this.statusCode = statusCode;
    this.code = code;
    // Unconditional: the class fields above already define both (as undefined) on every instance.
    this.details = details;
    this.requestId = requestId;
  }
}
