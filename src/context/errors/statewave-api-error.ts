import { SharedCtxError } from "../../errors.js";

/**
 * A Statewave server answered with an error status. Same name and fields as the official SDK's
 * error: `code` comes from the envelope `{"error":{"code",…}}`, or is `"unknown"` when the body
 * has no envelope (e.g. v0.7.1's bare `{"error":"Job not found or expired"}`, contract §3).
 */
export class StatewaveAPIError extends SharedCtxError {
  override readonly name: string = "StatewaveAPIError";
  /** The HTTP status: 422, 404, 401, … */
  readonly statusCode: number;
  /** `validation_error`, `missing_api_key`, `http_error`, `not_found`, … or `unknown`. */
  readonly code: string;
  /** The server's request id, for its logs: `error.request_id` or the `X-Request-ID` header. */
  readonly requestId?: string;
  /** pydantic-style validation details for a 422. */
  readonly details?: unknown;

  constructor(
    statusCode: number,
    code: string,
    message: string,
    options: { requestId?: string; details?: unknown; cause?: unknown } = {},
  ) {
    const suffix = options.requestId ? ` (request ${options.requestId})` : "";
    super(`Statewave ${statusCode} ${code}: ${message}${suffix}`, { cause: options.cause });
    this.statusCode = statusCode;
    this.code = code;
    if (options.requestId !== undefined) this.requestId = options.requestId;
    if (options.details !== undefined) this.details = options.details;
  }
}
