import { describe, expect, it } from "vitest";
import { HttpError, maxValidationDetails } from "../../src/server/http-error.js";
import { PortInUseError } from "../../src/server/port-in-use-error.js";

describe("HttpError", () => {
  it("carries status, code, message, details and headers; puts the request id in by default", () => {
    const error = new HttpError(
      405,
      { code: "http_error", message: "Method Not Allowed" },
      { Allow: "GET" },
    );
    expect(error).toMatchObject({
      name: "HttpError",
      status: 405,
      code: "http_error",
      message: "Method Not Allowed",
      details: undefined,
      includeRequestId: true,
      headers: { Allow: "GET" },
    });
    expect(error).toBeInstanceOf(Error);
    expect(new HttpError(401, { code: "c", message: "m", includeRequestId: false })).toMatchObject({
      includeRequestId: false,
      headers: {},
    });
  });

  it("builds a 422 validation_error listing at most 50 details, inputs bounded", () => {
    const details = Array.from({ length: maxValidationDetails + 5 }, (_, index) => ({
      type: "missing",
      loc: ["body", index],
      msg: "Field required",
      input: "x".repeat(1000),
    }));
    const error = HttpError.validation(details);
    expect(error).toMatchObject({
      status: 422,
      code: "validation_error",
      message: "Request validation failed",
    });
    const listed = error.details as Array<{ loc: unknown[]; input: string }>;
    expect(listed).toHaveLength(maxValidationDetails);
    expect(listed.at(-1)?.loc).toEqual(["body", maxValidationDetails - 1]);
    expect(listed[0]?.input).toBe(`${"x".repeat(500)}…`);
  });

  it("adds no input to a detail that has none", () => {
    const error = HttpError.validation([{ type: "value_error", loc: ["body"], msg: "bad" }]);
    expect(error.details).toEqual([{ type: "value_error", loc: ["body"], msg: "bad" }]);
    expect(Object.hasOwn((error.details as object[])[0] ?? {}, "input")).toBe(false);
  });
});

describe("PortInUseError", () => {
  it("names the port, the host, the fix and keeps the cause", () => {
    const cause = new Error("EADDRINUSE");
    const error = new PortInUseError(8100, "127.0.0.1", { cause });
    expect(error).toMatchObject({ name: "PortInUseError", port: 8100, host: "127.0.0.1", cause });
    expect(error.message).toBe(
      "Port 8100 on 127.0.0.1 is already in use (another `shared-ctx serve`?). " +
        "Stop that process, or pick another port: --port 8101, or --port 0 for any free port.",
    );
  });
});
