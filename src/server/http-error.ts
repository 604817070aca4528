import { SharedCtxError } from "../errors.js";
import { boundedEcho } from "./bounded-json.js";

/** At most this many problems are listed in one 422 (a batch of 100 bad episodes has hundreds). */
export const maxValidationDetails = 50;

/** One pydantic-style validation problem, as Statewave puts them in `error.details` (contract §3). */
export interface ValidationDetail {
  /** pydantic's error type: `missing`, `string_too_long`, `too_long`, `json_invalid`, … */
  type: string;
  /** Where: `["body", "subject_id"]`, `["body", "episodes", 3, "payload"]`, `["query", "limit"]`. */
  loc: Array<string | number>;
  msg: string;
  input?: unknown;
  ctx?: Record<string, unknown>;
}

/** What the single error handler needs to write the envelope `{"error":{code,message,details?,request_id?}}`. */
export interface HttpErrorBody {
  code: string;
  message: string;
  details?: unknown;
  /**
   * Put the request id into the body. Statewave leaves it out of the auth failures (401/403),
   * though the `X-Request-ID` header is still set (contract §2).
   * @default true
   */
  includeRequestId?: boolean;
}

/**
 * An HTTP error the server answers on purpose. Route code throws it; `app.onError` turns it into
 * Statewave's error envelope (contract §3), so there is exactly one place that writes error bodies.
 */
export class HttpError extends SharedCtxError {
  override readonly name: string = "HttpError";
  readonly status: number;
  readonly code: string;
  readonly details?: unknown;
  readonly includeRequestId: boolean;
  /** Extra response headers, e.g. `Allow` on a 405. */
  readonly headers: Readonly<Record<string, string>>;

  constructor(status: number, body: HttpErrorBody, headers: Record<string, string> = {}) {
    super(body.message);
    this.status = status;
    this.code = body.code;
    this.details = body.details;
    this.includeRequestId = body.includeRequestId ?? true;
    this.headers = headers;
  }

  /**
   * 422 `validation_error` with pydantic-style details, as FastAPI answers bad input. Bounded:
   * at most {@link maxValidationDetails} problems, each `input` cut to a small echo (see
   * `boundedEcho`), so no request can make its own error body large or deep.
   */
  static validation(details: readonly ValidationDetail[]): HttpError {
    return new HttpError(422, {
      code: "validation_error",
      message: "Request validation failed",
      details: details
        .slice(0, maxValidationDetails)
        .map((detail) =>
          "input" in detail ? { ...detail, input: boundedEcho(detail.input) } : detail,
        ),
    });
  }
}
