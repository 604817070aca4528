import { SharedCtxError } from "../errors.js";

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

  /** 422 `validation_error` with pydantic-style details, as FastAPI answers bad input. */
  static validation(details: ValidationDetail[]): HttpError {
    return new HttpError(422, {
      code: "validation_error",
      message: "Request validation failed",
      details,
    });
  }
}
