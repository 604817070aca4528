import { describe, expect, it } from "vitest";
import { StatewaveAPIError } from "../../../../src/context/statewave/errors/statewave-api-error.js";
import { StatewaveConnectionError } from "../../../../src/context/statewave/errors/statewave-connection-error.js";
import { StatewaveTimeoutError } from "../../../../src/context/statewave/errors/statewave-timeout-error.js";
import { SharedCtxError } from "../../../../src/errors.js";

const startHint =
  "Start one with `npx shared-ctx serve`, or check the URL (--url or STATEWAVE_URL).";

// These keep the official SDK's names and fields: callers catch them by name and read the fields.
describe("the Statewave client's errors", () => {
  it("StatewaveAPIError reads like the SDK's, with every field of the envelope and the cause", () => {
    const cause = new Error("the response that carried it");
    const details = [{ loc: ["body", "subject_id"], msg: "Field required" }];

    const error = new StatewaveAPIError(
      422,
      "validation_error",
      "Request validation failed",
      details,
      "req-7",
      { cause },
    );

    expect(error).toBeInstanceOf(SharedCtxError);
    expect(SharedCtxError.isInstance(error)).toBe(true);
    expect(error.name).toBe("StatewaveAPIError");
    expect(error.message).toBe("[422] validation_error: Request validation failed");
    expect(error.statusCode).toBe(422);
    expect(error.code).toBe("validation_error");
    expect(error.details).toBe(details);
    expect(error.requestId).toBe("req-7");
    expect(error.cause).toBe(cause);
  });

  it("StatewaveAPIError without details, request id or cause leaves them undefined", () => {
    const error = new StatewaveAPIError(404, "unknown", "Job not found or expired");

    expect(error.message).toBe("[404] unknown: Job not found or expired");
    expect(error.details).toBeUndefined();
    expect(error.requestId).toBeUndefined();
    expect(error.cause).toBeUndefined();
  });

  it("StatewaveConnectionError names the URL, the reason and how to get a server", () => {
    const cause = new TypeError("fetch failed");

    const error = new StatewaveConnectionError(
      "http://127.0.0.1:4100",
      "connection refused (ECONNREFUSED)",
      { cause },
    );

    expect(error).toBeInstanceOf(SharedCtxError);
    expect(error.name).toBe("StatewaveConnectionError");
    expect(error.url).toBe("http://127.0.0.1:4100");
    expect(error.message).toBe(
      `Cannot reach the Statewave server at http://127.0.0.1:4100: connection refused (ECONNREFUSED). ${startHint}`,
    );
    expect(error.cause).toBe(cause);
  });

  it("StatewaveTimeoutError is a connection error that says how long it waited", () => {
    const cause = new DOMException("This operation was aborted", "AbortError");

    const error = new StatewaveTimeoutError("http://127.0.0.1:4100", 250, { cause });

    expect(error).toBeInstanceOf(StatewaveConnectionError);
    expect(error.name).toBe("StatewaveTimeoutError");
    expect(error.url).toBe("http://127.0.0.1:4100");
    expect(error.timeoutMs).toBe(250);
    expect(error.message).toBe(
      `Cannot reach the Statewave server at http://127.0.0.1:4100: no answer within 250 ms. ${startHint}`,
    );
    expect(error.cause).toBe(cause);
  });
});
