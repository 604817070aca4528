import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ContextStore } from "../../src/context/context-store.js";
import { EmbeddedStore } from "../../src/context/embedded/embedded-store.js";
import { createApp } from "../../src/server/app.js";

const base = "http://test";
/** Wire shapes as the assertions read them. */
interface ErrorBody {
  error: {
    code: string;
    message: string;
    request_id?: string;
    details: Array<{ type: string; loc: unknown[]; msg: string; ctx?: unknown; input?: unknown }>;
  };
}
type WireObject = Record<string, unknown>;
interface WireEpisode extends WireObject {
  id: string;
  session_id: string | null;
}
interface WireMemory extends WireObject {
  content: string;
}
interface WireContext extends WireObject {
  assembled_context: string;
  provenance: WireObject;
}
interface WireJob extends WireObject {
  job_id: string;
  status: string;
}

async function readJson<T = WireObject>(response: Response | Promise<Response>): Promise<T> {
  return (await (await response).json()) as T;
}

const json = { "Content-Type": "application/json" };

function episodeBody(subjectId: string, content = "a note") {
  return {
    subject_id: subjectId,
    source: "agent-a",
    type: "implementation_note",
    payload: { content },
  };
}

describe("createApp", () => {
  let store: EmbeddedStore;
  let app: ReturnType<typeof createApp>;
  let nextId = 0;

  beforeEach(() => {
    store = new EmbeddedStore({ path: ":memory:" });
    nextId = 0;
    app = createApp({ store, generateRequestId: () => `req${String(nextId++).padStart(13, "0")}` });
  });
  afterEach(async () => {
    await store.close();
  });

  function send(path: string, init: RequestInit = {}): Promise<Response> {
    return Promise.resolve(app.fetch(new Request(`${base}${path}`, init)));
  }
  function post(path: string, body: unknown, headers: Record<string, string> = json) {
    return send(path, {
      method: "POST",
      headers,
      body: typeof body === "string" ? body : JSON.stringify(body),
    });
  }

  describe("POST /v1/episodes", () => {
    it("answers 201 with the snake_case episode, opaque fields untouched", async () => {
      const payload = { camelCase: { innerKey: [1, "ü", null] }, snake_case: true };
      const response = await post("/v1/episodes", {
        ...episodeBody("s1"),
        payload,
        metadata: { toolName: "grep" },
        provenance: { runId: "r1" },
        session_id: "sess",
        idempotency_key: "ignored",
      });
      expect(response.status).toBe(201);
      expect(response.headers.get("content-type")).toMatch(/^application\/json/);
      const body = await readJson<WireEpisode>(response);
      expect(Object.keys(body).sort()).toEqual(
        [
          "created_at",
          "id",
          "metadata",
          "payload",
          "provenance",
          "session_id",
          "source",
          "subject_id",
          "type",
        ].sort(),
      );
      expect(body).toMatchObject({
        subject_id: "s1",
        payload,
        metadata: { toolName: "grep" },
        provenance: { runId: "r1" },
        session_id: "sess",
      });
    });

    it("reads a body with a Content-Length", async () => {
      const body = JSON.stringify(episodeBody("sized"));
      const response = await send("/v1/episodes", {
        method: "POST",
        headers: { ...json, "Content-Length": String(Buffer.byteLength(body)) },
        body,
      });
      expect(response.status).toBe(201);
    });

    it("sets session_id to null when it is not given", async () => {
      const body = await readJson<WireEpisode>(post("/v1/episodes", episodeBody("s1")));
      expect(body.session_id).toBeNull();
      expect(body.metadata).toEqual({});
      expect(body.provenance).toEqual({});
    });

    it.each([
      ["text/plain", { "Content-Type": "text/plain" }],
      ["form-urlencoded (curl -d)", { "Content-Type": "application/x-www-form-urlencoded" }],
      ["no Content-Type", {}],
    ])(
      "refuses a body sent as %s with 415 and stores nothing (a web page could send it without a preflight)",
      async (_label, headers) => {
        const response = await post("/v1/episodes", episodeBody("lenient"), headers);
        expect(response.status).toBe(415);
        expect((await readJson<ErrorBody>(response)).error.code).toBe("unsupported_media_type");
        const timeline = await readJson<{ episodes: unknown[] }>(
          await send("/v1/timeline?subject_id=lenient"),
        );
        expect(timeline.episodes).toEqual([]);
      },
    );

    it.each([
      ["with a charset", "application/json; charset=utf-8"],
      ["a +json type", "application/vnd.statewave+json"],
    ])("accepts JSON declared %s", async (_label, contentType) => {
      const response = await post("/v1/episodes", episodeBody("json-types"), {
        "Content-Type": contentType,
      });
      expect(response.status).toBe(201);
    });
  });

  describe("request ids", () => {
    it("echoes X-Request-ID on success and in error bodies", async () => {
      const ok = await send("/healthz", { headers: { "X-Request-ID": "abc-123" } });
      expect(ok.headers.get("x-request-id")).toBe("abc-123");
      const bad = await send("/v1/timeline", { headers: { "X-Request-ID": "abc-456" } });
      expect(bad.headers.get("x-request-id")).toBe("abc-456");
      expect((await readJson<ErrorBody>(bad)).error.request_id).toBe("abc-456");
    });

    it("generates 16 lowercase hex digits by default", async () => {
      const defaultApp = createApp({ store });
      const response = await defaultApp.fetch(new Request(`${base}/healthz`));
      expect(response.headers.get("x-request-id")).toMatch(/^[0-9a-f]{16}$/);
    });
  });

  describe("bad input: status, code, and nothing stored is lost", () => {
    // Past the default body limit (16 MiB).
    const big = "x".repeat(16 * 1024 * 1024);
    const validItem = episodeBody("victim");
    type Case = {
      name: string;
      request: () => Request;
      status: number;
      code: string;
      detail?: { type: string; loc: Array<string | number> };
    };
    const postRaw =
      (path: string, body: string, headers: Record<string, string> = json) =>
      () =>
        new Request(`${base}${path}`, { method: "POST", headers, body });
    const postJson = (path: string, body: unknown) => postRaw(path, JSON.stringify(body));
    const cases: Case[] = [
      {
        name: "malformed JSON",
        request: postRaw("/v1/episodes", '{"subject_id": '),
        status: 422,
        code: "validation_error",
        detail: { type: "json_invalid", loc: ["body", 15] },
      },
      {
        name: "invalid UTF-8",
        request: () =>
          new Request(`${base}/v1/episodes`, {
            method: "POST",
            headers: json,
            body: new Uint8Array([0x7b, 0xff, 0x7d]),
          }),
        status: 422,
        code: "validation_error",
        detail: { type: "json_invalid", loc: ["body", 0] },
      },
      {
        name: "an empty body",
        request: postRaw("/v1/episodes", ""),
        status: 422,
        code: "validation_error",
        detail: { type: "missing", loc: ["body"] },
      },
      {
        name: "a JSON array body",
        request: postJson("/v1/episodes", []),
        status: 422,
        code: "validation_error",
        detail: { type: "model_attributes_type", loc: ["body"] },
      },
      {
        name: "a JSON string body",
        request: postJson("/v1/context", "task"),
        status: 422,
        code: "validation_error",
        detail: { type: "model_attributes_type", loc: ["body"] },
      },
      {
        name: "missing subject_id",
        request: postJson("/v1/episodes", { ...validItem, subject_id: undefined }),
        status: 422,
        code: "validation_error",
        detail: { type: "missing", loc: ["body", "subject_id"] },
      },
      {
        name: "an empty subject_id",
        request: postJson("/v1/episodes", { ...validItem, subject_id: "" }),
        status: 422,
        code: "validation_error",
        detail: { type: "string_too_short", loc: ["body", "subject_id"] },
      },
      {
        name: "a numeric subject_id",
        request: postJson("/v1/episodes", { ...validItem, subject_id: 123 }),
        status: 422,
        code: "validation_error",
        detail: { type: "string_type", loc: ["body", "subject_id"] },
      },
      {
        name: "a subject_id of 257 characters",
        request: postJson("/v1/episodes", { ...validItem, subject_id: "s".repeat(257) }),
        status: 422,
        code: "validation_error",
        detail: { type: "string_too_long", loc: ["body", "subject_id"] },
      },
      {
        name: "a type of 129 characters",
        request: postJson("/v1/episodes", { ...validItem, type: "t".repeat(129) }),
        status: 422,
        code: "validation_error",
        detail: { type: "string_too_long", loc: ["body", "type"] },
      },
      {
        name: "a lone surrogate in source",
        request: postRaw("/v1/episodes", JSON.stringify({ ...validItem, source: "\ud800" })),
        status: 422,
        code: "validation_error",
        detail: { type: "string_unicode", loc: ["body", "source"] },
      },
      {
        name: "a payload that is an array",
        request: postJson("/v1/episodes", { ...validItem, payload: [1, 2] }),
        status: 422,
        code: "validation_error",
        detail: { type: "dict_type", loc: ["body", "payload"] },
      },
      {
        name: "a null payload",
        request: postJson("/v1/episodes", { ...validItem, payload: null }),
        status: 422,
        code: "validation_error",
        detail: { type: "dict_type", loc: ["body", "payload"] },
      },
      {
        name: "null metadata",
        request: postJson("/v1/episodes", { ...validItem, metadata: null }),
        status: 422,
        code: "validation_error",
        detail: { type: "dict_type", loc: ["body", "metadata"] },
      },
      {
        name: "JSON nested 10,000 deep",
        request: postRaw(
          "/v1/episodes",
          `{"subject_id":"x","source":"a","type":"t","payload":{"a":${"[".repeat(10_000)}${"]".repeat(10_000)}}}`,
        ),
        status: 422,
        code: "validation_error",
        detail: { type: "json_invalid", loc: ["body"] },
      },
      {
        name: "a batch of 101",
        request: postJson("/v1/episodes/batch", {
          episodes: Array.from({ length: 101 }, () => validItem),
        }),
        status: 422,
        code: "validation_error",
        detail: { type: "too_long", loc: ["body", "episodes"] },
      },
      {
        name: "an empty batch",
        request: postJson("/v1/episodes/batch", { episodes: [] }),
        status: 422,
        code: "validation_error",
        detail: { type: "too_short", loc: ["body", "episodes"] },
      },
      {
        name: "a batch with one bad item",
        request: postJson("/v1/episodes/batch", {
          episodes: [validItem, { ...validItem, source: "" }, validItem],
        }),
        status: 422,
        code: "validation_error",
        detail: { type: "string_too_short", loc: ["body", "episodes", 1, "source"] },
      },
      {
        name: "compile with async: 'maybe'",
        request: postJson("/v1/memories/compile", { subject_id: "victim", async: "maybe" }),
        status: 422,
        code: "validation_error",
        detail: { type: "bool_parsing", loc: ["body", "async"] },
      },
      {
        name: "context with a task of 4001 characters",
        request: postJson("/v1/context", { subject_id: "victim", task: "t".repeat(4001) }),
        status: 422,
        code: "validation_error",
        detail: { type: "string_too_long", loc: ["body", "task"] },
      },
      {
        name: "context with max_tokens 50.5",
        request: postJson("/v1/context", { subject_id: "victim", task: "t", max_tokens: 50.5 }),
        status: 422,
        code: "validation_error",
        detail: { type: "int_from_float", loc: ["body", "max_tokens"] },
      },
      {
        name: "context with max_tokens 0",
        request: postJson("/v1/context", { subject_id: "victim", task: "t", max_tokens: 0 }),
        status: 422,
        code: "validation_error",
        detail: { type: "greater_than_equal", loc: ["body", "max_tokens"] },
      },
      {
        name: "search without subject_id",
        request: () => new Request(`${base}/v1/memories/search`),
        status: 422,
        code: "validation_error",
        detail: { type: "missing", loc: ["query", "subject_id"] },
      },
      {
        name: "search with limit=-1 (a 500 in Statewave)",
        request: () => new Request(`${base}/v1/memories/search?subject_id=victim&limit=-1`),
        status: 422,
        code: "validation_error",
        detail: { type: "greater_than_equal", loc: ["query", "limit"] },
      },
      {
        name: "search with limit=abc",
        request: () => new Request(`${base}/v1/memories/search?subject_id=victim&limit=abc`),
        status: 422,
        code: "validation_error",
        detail: { type: "int_parsing", loc: ["query", "limit"] },
      },
      {
        name: "subjects with limit=201",
        request: () => new Request(`${base}/v1/subjects?limit=201`),
        status: 422,
        code: "validation_error",
        detail: { type: "less_than_equal", loc: ["query", "limit"] },
      },
      {
        name: "timeline without subject_id",
        request: () => new Request(`${base}/v1/timeline`),
        status: 422,
        code: "validation_error",
        detail: { type: "missing", loc: ["query", "subject_id"] },
      },
      {
        name: "an unknown compile job",
        request: () => new Request(`${base}/v1/memories/compile/deadbeef`),
        status: 404,
        code: "not_found",
      },
      {
        name: "an unknown route",
        request: () => new Request(`${base}/v1/nope`),
        status: 404,
        code: "http_error",
      },
      {
        name: "a trailing slash",
        request: () => new Request(`${base}/v1/episodes/`, { method: "POST", body: "{}" }),
        status: 404,
        code: "http_error",
      },
      {
        name: "the wrong method",
        request: () => new Request(`${base}/v1/episodes`),
        status: 405,
        code: "http_error",
      },
      {
        name: "DELETE on /v1/timeline",
        request: () => new Request(`${base}/v1/timeline?subject_id=victim`, { method: "DELETE" }),
        status: 405,
        code: "http_error",
      },
      {
        name: "a body over 16 MiB (with Content-Length)",
        request: () => {
          const body = JSON.stringify({ ...validItem, payload: { content: big } });
          return new Request(`${base}/v1/episodes`, {
            method: "POST",
            headers: { ...json, "Content-Length": String(Buffer.byteLength(body)) },
            body,
          });
        },
        status: 413,
        code: "payload_too_large",
      },
      {
        name: "a streamed body over 16 MiB (no Content-Length)",
        request: () =>
          new Request(`${base}/v1/episodes`, {
            method: "POST",
            headers: json,
            body: new ReadableStream({
              start(controller) {
                const chunk = new TextEncoder().encode("x".repeat(64 * 1024));
                for (let index = 0; index < 260; index++) controller.enqueue(chunk);
                controller.close();
              },
            }),
            duplex: "half",
          } as RequestInit),
        status: 413,
        code: "payload_too_large",
      },
    ];

    it.each(cases)("$name -> $status $code", async (testCase) => {
      const before = await post("/v1/episodes", episodeBody("victim", "keep me"));
      expect(before.status).toBe(201);
      const stored = await readJson<WireEpisode>(before);

      const response = await app.fetch(testCase.request());
      expect(response.status).toBe(testCase.status);
      expect(response.headers.get("x-request-id")).toMatch(/^req\d{13}$/);
      const body = await readJson<ErrorBody>(response);
      expect(body.error.code).toBe(testCase.code);
      expect(body.error.message).toEqual(expect.any(String));
      expect(body.error.request_id).toBe(response.headers.get("x-request-id"));
      if (testCase.detail) {
        expect(body.error.message).toBe("Request validation failed");
        expect(body.error.details[0]).toMatchObject(testCase.detail);
        expect(body.error.details[0]?.msg).toEqual(expect.any(String));
      }

      const timeline = await readJson(send("/v1/timeline?subject_id=victim"));
      expect(timeline.episodes).toEqual([stored]);
    });

    it("a missing field echoes the body as input, as pydantic does", async () => {
      const response = await post("/v1/episodes", { source: "a", type: "t", payload: {} });
      const { error } = await readJson<ErrorBody>(response);
      expect(error.details).toEqual([
        {
          type: "missing",
          loc: ["body", "subject_id"],
          msg: "Field required",
          input: { source: "a", type: "t", payload: {} },
        },
      ]);
    });

    it("a batch of 101 reports the lengths in ctx", async () => {
      const response = await post("/v1/episodes/batch", {
        episodes: Array.from({ length: 101 }, () => validItem),
      });
      const { error } = await readJson<ErrorBody>(response);
      expect(error.details[0]).toMatchObject({
        type: "too_long",
        loc: ["body", "episodes"],
        ctx: { field_type: "List", max_length: 100, actual_length: 101 },
      });
    });

    it("405 names the allowed method", async () => {
      const response = await send("/v1/context");
      expect(response.headers.get("allow")).toBe("POST");
    });
  });

  describe("lax coercion like pydantic", () => {
    it("takes async 'yes' and max_tokens '50'", async () => {
      await post("/v1/episodes", episodeBody("lax"));
      const job = await post("/v1/memories/compile", { subject_id: "lax", async: "yes" });
      expect(job.status).toBe(202);
      expect(await readJson(job)).toMatchObject({ subject_id: "lax", job_id: expect.any(String) });
      const context = await post("/v1/context", { subject_id: "lax", task: "t", max_tokens: "50" });
      expect(context.status).toBe(200);
    });
  });

  describe("endpoints", () => {
    it("compiles, searches, assembles context and deletes, all in snake_case", async () => {
      const batch = await post("/v1/episodes/batch", {
        episodes: [
          {
            ...episodeBody("flow"),
            type: "architectural_decision",
            payload: { content: "Use RS256" },
          },
          episodeBody("flow", "login form done"),
        ],
      });
      expect(batch.status).toBe(201);
      expect((await readJson(batch)).episodes_created).toBe(2);

      const compiled = await post("/v1/memories/compile", { subject_id: "flow" });
      expect(compiled.status).toBe(200);
      const compileBody = await readJson<{ memories_created: number; memories: WireMemory[] }>(
        compiled,
      );
      expect(compileBody.memories_created).toBe(2);
      expect(Object.keys(compileBody.memories[0] ?? {}).sort()).toEqual(
        [
          "confidence",
          "content",
          "created_at",
          "id",
          "kind",
          "metadata",
          "source_episode_ids",
          "status",
          "subject_id",
          "summary",
          "updated_at",
          "valid_from",
          "valid_to",
        ].sort(),
      );

      const search = await readJson<{ memories: WireMemory[] }>(
        send("/v1/memories/search?subject_id=flow&q=rs256"),
      );
      expect(search.memories.map((memory: { content: string }) => memory.content)).toEqual([
        "Use RS256",
      ]);

      const context = await readJson<WireContext>(
        post("/v1/context", { subject_id: "flow", task: "build login", max_tokens: 500 }),
      );
      expect(context).toMatchObject({ subject_id: "flow", task: "build login" });
      expect(context.assembled_context.startsWith("## Task\nbuild login\n")).toBe(true);
      expect(Object.keys(context.provenance).sort()).toEqual(
        ["episode_ids", "fact_ids", "procedure_ids", "summary_ids"].sort(),
      );
      expect(context.token_estimate).toEqual(expect.any(Number));

      const subjects = await readJson(send("/v1/subjects"));
      expect(subjects).toEqual({
        subjects: [{ subject_id: "flow", episode_count: 2, memory_count: 2 }],
        total: 1,
      });

      const deleted = await readJson(send("/v1/subjects/flow", { method: "DELETE" }));
      expect(deleted).toEqual({ subject_id: "flow", episodes_deleted: 2, memories_deleted: 2 });
    });

    it("runs an async compile job and reports it when polled", async () => {
      await post("/v1/episodes", episodeBody("job"));
      const started = await readJson<WireJob>(
        post("/v1/memories/compile", { subject_id: "job", async: true }),
      );
      expect(started).toMatchObject({ subject_id: "job", status: expect.any(String) });
      let job = await readJson<WireJob>(send(`/v1/memories/compile/${started.job_id}`));
      for (let attempt = 0; job.status !== "completed" && attempt < 100; attempt++) {
        await new Promise((resolve) => setTimeout(resolve, 10));
        job = await readJson<WireJob>(send(`/v1/memories/compile/${started.job_id}`));
      }
      expect(job).toMatchObject({
        job_id: started.job_id,
        status: "completed",
        memories_created: 1,
      });
    });

    it("pages the timeline with limit and offset (an extension)", async () => {
      const ids: string[] = [];
      for (let index = 0; index < 5; index++) {
        ids.push(
          (await readJson<WireEpisode>(post("/v1/episodes", episodeBody("paged", `n${index}`)))).id,
        );
      }
      const page = await readJson<{ episodes: WireEpisode[] }>(
        send("/v1/timeline?subject_id=paged&limit=2&offset=2"),
      );
      expect(page.episodes.map((episode: { id: string }) => episode.id)).toEqual(ids.slice(2, 4));
    });

    it("deletes a subject whose id contains a slash", async () => {
      await post("/v1/episodes", episodeBody("team/run-1"));
      const encoded = await send("/v1/subjects/team%2Frun-1", { method: "DELETE" });
      expect(await readJson(encoded)).toMatchObject({
        subject_id: "team/run-1",
        episodes_deleted: 1,
      });
      await post("/v1/episodes", episodeBody("team/run-2"));
      const raw = await send("/v1/subjects/team/run-2", { method: "DELETE" });
      expect(await readJson(raw)).toMatchObject({ subject_id: "team/run-2", episodes_deleted: 1 });
    });

    it("answers health and readiness", async () => {
      for (const path of ["/healthz", "/health"]) {
        expect(await readJson(send(path))).toEqual({ status: "ok" });
      }
      for (const path of ["/readyz", "/ready"]) {
        const response = await send(path);
        expect(response.status).toBe(200);
        expect(await readJson(response)).toEqual({
          status: "ready",
          checks: [{ name: "database", status: "ok" }],
        });
      }
    });

    it("reports not_ready with 503 once the store is closed", async () => {
      await store.close();
      const response = await send("/readyz");
      expect(response.status).toBe(503);
      expect((await readJson(response)).status).toBe("not_ready");
    });
  });
});

describe("createApp unexpected errors", () => {
  it("answers 500 internal_error without details and tells onUnexpectedError", async () => {
    const reported: unknown[] = [];
    // A store whose every method fails the way a bug would: not bad input, a real 500.
    const broken = new Proxy(
      {},
      {
        get: () => () => Promise.reject(new Error("disk on fire: /secret/path")),
      },
    );
    const app = createApp({
      store: { forTenant: () => broken as unknown as ContextStore },
      onUnexpectedError: (error) => reported.push(error),
      generateRequestId: () => "0000000000000001",
    });
    const response = await app.fetch(new Request(`${base}/v1/subjects`));
    expect(response.status).toBe(500);
    expect(await response.json()).toEqual({
      error: {
        code: "internal_error",
        message: "An unexpected error occurred",
        request_id: "0000000000000001",
      },
    });
    expect(reported).toHaveLength(1);
  });
});
