import { describe, expect, it } from "vitest";
import {
  missing,
  notAnObject,
  notDictionary,
  notString,
  stringTooLong,
  stringTooShort,
} from "../support/pydantic-errors.js";
import { emulatorClient } from "./emulator-client.js";

/** The body of a v0.7.1 validation failure: the envelope with pydantic's details. */
function invalid(details: unknown[], requestId = "generated-request-id") {
  return {
    error: {
      code: "validation_error",
      message: "Request validation failed",
      details,
      request_id: requestId,
    },
  };
}

/** The answer to a route v0.7.1 does not have (Starlette's HTTPException, in the envelope). */
function httpError(status: number, message: string) {
  return {
    status,
    requestId: "generated-request-id",
    body: { error: { code: "http_error", message, request_id: "generated-request-id" } },
  };
}

describe("the Statewave v0.7.1 emulation: POST /v1/episodes validation", () => {
  const long = (count: number) => "x".repeat(count);

  it.each([
    [
      "a subject_id over 256 characters",
      { subject_id: long(257) },
      stringTooLong(["body", "subject_id"], long(257), 256),
    ],
    [
      "a source over 256 characters",
      { source: long(257) },
      stringTooLong(["body", "source"], long(257), 256),
    ],
    [
      "a type over 128 characters",
      { type: long(129) },
      stringTooLong(["body", "type"], long(129), 128),
    ],
    ["an empty source", { source: "" }, stringTooShort(["body", "source"], "", 1)],
    ["a numeric subject_id", { subject_id: 5 }, notString(["body", "subject_id"], 5)],
    [
      "a null subject_id (not nullable)",
      { subject_id: null },
      notString(["body", "subject_id"], null),
    ],
    ["a numeric session_id", { session_id: 7 }, notString(["body", "session_id"], 7)],
    [
      "a session_id over 256 characters",
      { session_id: long(257) },
      stringTooLong(["body", "session_id"], long(257), 256),
    ],
    ["a list payload", { payload: [1] }, notDictionary(["body", "payload"], [1])],
    ["a string payload", { payload: "text" }, notDictionary(["body", "payload"], "text")],
    ["a null metadata", { metadata: null }, notDictionary(["body", "metadata"], null)],
    ["a list provenance", { provenance: [] }, notDictionary(["body", "provenance"], [])],
  ])("answers %s with a 422 naming the field", async (_name, fields, detail) => {
    const { post, episode } = emulatorClient();
    const answer = await post("/v1/episodes", episode(fields));
    expect(answer).toEqual({
      status: 422,
      requestId: "generated-request-id",
      body: invalid([detail]),
    });
  });

  it("lists every missing field, with the whole body as input", async () => {
    const { post } = emulatorClient();
    const answer = await post("/v1/episodes", {});
    const absent = (name: string) => missing(["body", name], {});
    expect(answer.status).toBe(422);
    expect(answer.body).toEqual(
      invalid([absent("subject_id"), absent("source"), absent("type"), absent("payload")]),
    );
  });

  it("accepts each limit exactly, counting code points rather than UTF-16 units", async () => {
    const { post, episode } = emulatorClient();
    const emoji = "😀".repeat(256);
    const answer = await post(
      "/v1/episodes",
      episode({ subject_id: emoji, source: long(256), type: long(128), session_id: long(256) }),
    );
    expect(answer.status).toBe(201);
    expect(answer.body).toMatchObject({ subject_id: emoji, type: long(128) });
  });

  it.each([
    ["an empty session_id", "", ""],
    ["a null session_id", null, null],
  ])("accepts %s", async (_name, sessionId, stored) => {
    const { post, episode } = emulatorClient();
    const answer = await post("/v1/episodes", episode({ session_id: sessionId }));
    expect(answer.status).toBe(201);
    expect(answer.body).toMatchObject({ session_id: stored });
  });

  it("stores nothing for a rejected episode", async () => {
    const { post, get, episode } = emulatorClient();
    await post("/v1/episodes", episode({ type: "" }));
    const timeline = await get("/v1/timeline?subject_id=s");
    expect(timeline.body).toEqual({ subject_id: "s", episodes: [], memories: [] });
  });
});

describe("the Statewave v0.7.1 emulation: POST /v1/episodes/batch validation", () => {
  it("requires an episodes list", async () => {
    const { post } = emulatorClient();
    expect((await post("/v1/episodes/batch", { other: 1 })).body).toEqual(
      invalid([missing(["body", "episodes"], { other: 1 })]),
    );
    expect((await post("/v1/episodes/batch", { episodes: "many" })).body).toEqual(
      invalid([
        {
          type: "list_type",
          loc: ["body", "episodes"],
          msg: "Input should be a valid list",
          input: "many",
        },
      ]),
    );
  });

  it("refuses an empty list and one over 100 items, with pydantic's ctx", async () => {
    const { post, episode } = emulatorClient();
    const empty = await post("/v1/episodes/batch", { episodes: [] });
    expect(empty.status).toBe(422);
    expect(empty.body).toEqual(
      invalid([
        {
          type: "too_short",
          loc: ["body", "episodes"],
          msg: "List should have at least 1 item after validation, not 0",
          input: [],
          ctx: { field_type: "List", min_length: 1, actual_length: 0 },
        },
      ]),
    );
    const items = Array.from({ length: 101 }, () => episode());
    const tooMany = await post("/v1/episodes/batch", { episodes: items });
    expect(tooMany.status).toBe(422);
    expect(tooMany.body).toEqual(
      invalid([
        {
          type: "too_long",
          loc: ["body", "episodes"],
          msg: "List should have at most 100 items after validation, not 101",
          input: items,
          ctx: { field_type: "List", max_length: 100, actual_length: 101 },
        },
      ]),
    );
  });

  it("accepts exactly 100 items and a single one", async () => {
    const { post, episode } = emulatorClient();
    const hundred = await post("/v1/episodes/batch", {
      episodes: Array.from({ length: 100 }, () => episode()),
    });
    expect(hundred.status).toBe(201);
    expect(hundred.body).toMatchObject({ episodes_created: 100 });
    const one = await post("/v1/episodes/batch", { episodes: [episode()] });
    expect(one.status).toBe(201);
    expect(one.body).toMatchObject({ episodes_created: 1 });
  });

  it("locates each bad item by index and stores none of the batch", async () => {
    const { post, get, episode } = emulatorClient();
    const answer = await post("/v1/episodes/batch", {
      episodes: [episode(), 5, episode({ subject_id: "" })],
    });
    expect(answer.status).toBe(422);
    expect(answer.body).toEqual(
      invalid([
        notAnObject(["body", "episodes", 1], 5),
        stringTooShort(["body", "episodes", 2, "subject_id"], "", 1),
      ]),
    );
    expect((await get("/v1/timeline?subject_id=s")).body).toMatchObject({ episodes: [] });
  });
});

describe("the Statewave v0.7.1 emulation: reading a JSON body", () => {
  it.each(["APPLICATION/JSON", "application/json; charset=utf-8"])(
    "accepts Content-Type %s",
    async (type) => {
      const { post, episode } = emulatorClient();
      const answer = await post("/v1/episodes", episode(), { "Content-Type": type });
      expect(answer.status).toBe(201);
    },
  );

  it.each([
    ["text/json", "{}"],
    ["", "{}"],
  ])("answers Content-Type %j with the 500 of v0.7.1", async (type, body) => {
    const { emulator } = emulatorClient();
    const response = await emulator.fetch(
      new Request("http://statewave.test/v1/context", {
        method: "POST",
        body,
        headers: type ? { "Content-Type": type } : {},
      }),
    );
    expect(response.status).toBe(500);
  });

  it.each([
    ["an empty body", "", [missing(["body"], null)]],
    [
      "malformed JSON",
      "{",
      [
        {
          type: "json_invalid",
          loc: ["body", 0],
          msg: "JSON decode error",
          input: {},
          ctx: { error: "Expecting value" },
        },
      ],
    ],
    ["a JSON list", "[1]", [notAnObject(["body"], [1])]],
    ["JSON null", "null", [notAnObject(["body"], null)]],
  ])("answers %s with a 422", async (_name, text, details) => {
    const { post } = emulatorClient();
    const answer = await post("/v1/memories/compile", text);
    expect(answer.status).toBe(422);
    expect(answer.body).toEqual(invalid(details));
  });
});

describe("the Statewave v0.7.1 emulation: other bodies and queries", () => {
  it("validates compile and context bodies", async () => {
    const { post } = emulatorClient();
    expect((await post("/v1/memories/compile", { subject_id: "" })).body).toEqual(
      invalid([stringTooShort(["body", "subject_id"], "", 1)]),
    );
    const task = "t".repeat(4001);
    const context = await post("/v1/context", { task });
    expect(context.status).toBe(422);
    expect(context.body).toEqual(
      invalid([
        missing(["body", "subject_id"], { task }),
        stringTooLong(["body", "task"], task, 4000),
      ]),
    );
    const atLimit = await post("/v1/context", { subject_id: "s", task: "t".repeat(4000) });
    expect(atLimit.status).toBe(200);
  });

  it.each(["/v1/memories/search", "/v1/timeline"])("requires subject_id on %s", async (path) => {
    const { get } = emulatorClient();
    const answer = await get(path);
    expect(answer.status).toBe(422);
    expect(answer.body).toEqual(invalid([missing(["query", "subject_id"], null)]));
  });

  const notInteger = (name: string, input: string) => ({
    type: "int_parsing",
    loc: ["query", name],
    msg: "Input should be a valid integer, unable to parse string as an integer",
    input,
  });
  const tooLarge = (name: string, input: string, le: number) => ({
    type: "less_than_equal",
    loc: ["query", name],
    msg: `Input should be less than or equal to ${le}`,
    input,
    ctx: { le },
  });
  const tooSmall = (name: string, input: string, ge: number) => ({
    type: "greater_than_equal",
    loc: ["query", name],
    msg: `Input should be greater than or equal to ${ge}`,
    input,
    ctx: { ge },
  });

  it.each([
    ["/v1/memories/search?subject_id=s&limit=abc", notInteger("limit", "abc")],
    ["/v1/memories/search?subject_id=s&limit=1.5", notInteger("limit", "1.5")],
    ["/v1/memories/search?subject_id=s&limit=101", tooLarge("limit", "101", 100)],
    ["/v1/subjects?limit=201", tooLarge("limit", "201", 200)],
    ["/v1/subjects?limit=0", tooSmall("limit", "0", 1)],
    ["/v1/subjects?offset=-1", tooSmall("offset", "-1", 0)],
    ["/v1/subjects?offset=x", notInteger("offset", "x")],
  ])("answers %s with the pydantic detail", async (path, detail) => {
    const { get } = emulatorClient();
    const answer = await get(path);
    expect(answer.status).toBe(422);
    expect(answer.body).toEqual(invalid([detail]));
  });

  it.each([
    "/v1/memories/search?subject_id=s&limit=100",
    "/v1/memories/search?subject_id=s&limit=0",
    "/v1/subjects?limit=200",
    "/v1/subjects?limit=1&offset=0",
  ])("accepts the bound %s", async (path) => {
    const { get } = emulatorClient();
    expect((await get(path)).status).toBe(200);
  });

  it("answers a negative search limit with the 500 of v0.7.1", async () => {
    const { get } = emulatorClient();
    const answer = await get("/v1/memories/search?subject_id=s&limit=-1");
    expect(answer.status).toBe(500);
  });
});

describe("the Statewave v0.7.1 emulation: errors, request ids and routing", () => {
  it("echoes the caller's X-Request-ID in the header and the envelope", async () => {
    const { post } = emulatorClient();
    const answer = await post("/v1/episodes", {}, { "X-Request-ID": "mine" });
    expect(answer.requestId).toBe("mine");
    expect(answer.body).toMatchObject({ error: { request_id: "mine" } });
  });

  it("answers a 500 with the internal envelope and no X-Request-ID header", async () => {
    const { send } = emulatorClient();
    const answer = await send("POST", "/v1/episodes", "{}", { "Content-Type": "text/plain" });
    expect(answer).toEqual({
      status: 500,
      requestId: null,
      body: {
        error: {
          code: "internal_error",
          message: "An unexpected error occurred",
          request_id: "generated-request-id",
        },
      },
    });
  });

  it("answers an unexpected exception (a malformed path escape) with the same 500", async () => {
    const { send } = emulatorClient();
    const answer = await send("DELETE", "/v1/subjects/%E0%A4%A");
    expect(answer).toMatchObject({
      status: 500,
      requestId: null,
      body: { error: { code: "internal_error" } },
    });
  });

  it("answers an unknown compile job with the bare-string 404 (no request id in the body)", async () => {
    const { get } = emulatorClient();
    const answer = await get("/v1/memories/compile/nope");
    expect(answer).toEqual({
      status: 404,
      requestId: "generated-request-id",
      body: { error: "Job not found or expired" },
    });
  });

  it.each([
    ["GET", "/v1/nothing"],
    ["POST", "/healthz"],
    ["GET", "/v1/subjects/a/b"],
  ])("answers %s %s with the 404 envelope", async (method, path) => {
    const { send } = emulatorClient();
    expect(await send(method, path)).toEqual(httpError(404, "Not Found"));
  });

  it.each([
    ["GET", "/v1/episodes"],
    ["GET", "/v1/episodes/batch"],
    ["GET", "/v1/memories/compile"],
    ["POST", "/v1/memories/search"],
    ["GET", "/v1/context"],
    ["POST", "/v1/timeline"],
    ["POST", "/v1/subjects"],
    ["DELETE", "/v1/memories/compile/job-1"],
    ["GET", "/v1/subjects/someone"],
  ])("answers %s %s with the 405 envelope", async (method, path) => {
    const { send } = emulatorClient();
    expect(await send(method, path)).toEqual(httpError(405, "Method Not Allowed"));
  });

  it.each(["/healthz", "/health"])("answers GET %s", async (path) => {
    const { get } = emulatorClient();
    expect(await get(path)).toEqual({
      status: 200,
      requestId: "generated-request-id",
      body: { status: "ok" },
    });
  });

  it("counts requests by method and path, without the query", async () => {
    const { emulator, get } = emulatorClient();
    await get("/v1/timeline?subject_id=a");
    await get("/v1/timeline?subject_id=b");
    await get("/healthz");
    expect([...emulator.requests]).toEqual([
      ["GET /v1/timeline", 2],
      ["GET /healthz", 1],
    ]);
  });

  it("serves a client's fetch without a socket", async () => {
    const { emulator } = emulatorClient();
    const response = await emulator.clientFetch("http://statewave.test/healthz", {
      headers: { "X-Request-ID": "via-fetch" },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get("x-request-id")).toBe("via-fetch");
  });

  it("makes 16-hex request ids and 8-hex job ids by default", async () => {
    const { post, get } = emulatorClient({
      generateRequestId: undefined,
      generateJobId: undefined,
    });
    const health = await get("/healthz");
    expect(health.requestId).toMatch(/^[0-9a-f]{16}$/);
    const job = await post("/v1/memories/compile", { subject_id: "s", async: true });
    expect(job.body).toMatchObject({ job_id: expect.stringMatching(/^[0-9a-f]{8}$/) });
  });
});
