import { describe, expect, it } from "vitest";
import type { ContextStore } from "../../src/context/context-store.js";
import { EmbeddedStore } from "../../src/context/embedded/embedded-store.js";
import { CompileEpisodeError } from "../../src/context/errors/compile-episode-error.js";
import { CompileJobNotFoundError } from "../../src/context/errors/compile-job-not-found-error.js";
import { StoreClosedError } from "../../src/context/errors/store-closed-error.js";
import { StoreValidationError } from "../../src/context/errors/store-validation-error.js";
import { PostgresConnectionError } from "../../src/context/postgres/errors/postgres-connection-error.js";
import { type CreateAppOptions, createApp } from "../../src/server/app.js";

/** A store whose every method rejects with `error`, recording the tenants asked for. */
function failingStore(error: unknown) {
  const tenants: Array<string | null> = [];
  const view = new Proxy({} as ContextStore, {
    get: () => () => Promise.reject(error),
  });
  return {
    tenants,
    store: {
      forTenant(tenantId: string | null) {
        tenants.push(tenantId);
        return view;
      },
    },
  };
}

function appWith(error: unknown, options: Partial<CreateAppOptions> = {}) {
  const { store, tenants } = failingStore(error);
  const app = createApp({ store, generateRequestId: () => "req-1", ...options });
  const send = async (method: string, path: string, body?: unknown, headers = {}) => {
    const response = await app.fetch(
      new Request(`http://test${path}`, {
        method,
        headers: { "Content-Type": "application/json", ...headers },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      }),
    );
    return {
      status: response.status,
      requestId: response.headers.get("x-request-id"),
      contentType: response.headers.get("content-type"),
      body: (await response.json()) as unknown,
    };
  };
  return { app, send, tenants };
}

const episode = { subject_id: "s", source: "a", type: "t", payload: {} };

describe("createApp: store errors become Statewave envelopes", () => {
  it.each([
    ["POST", "/v1/episodes", episode, "body"],
    ["GET", "/v1/timeline?subject_id=s", undefined, "query"],
    ["DELETE", "/v1/subjects/s", undefined, "path"],
  ])(
    "a StoreValidationError on %s %s names the %s field in snake_case",
    async (method, path, body, where) => {
      const { send } = appWith(
        new StoreValidationError("episodes[3].sessionId", "1..256 characters"),
      );
      expect(await send(method, path, body)).toEqual({
        status: 422,
        requestId: "req-1",
        contentType: "application/json",
        body: {
          error: {
            code: "validation_error",
            message: "Request validation failed",
            details: [
              {
                type: "value_error",
                loc: [where, "episodes", "3", "session_id"],
                msg: "Invalid episodes[3].sessionId: expected 1..256 characters",
                ctx: { expected: "1..256 characters" },
              },
            ],
            request_id: "req-1",
          },
        },
      });
    },
  );

  it("drops the empty part a field path ending in an index leaves", async () => {
    const { send } = appWith(new StoreValidationError("episodes[3]", "an object"));
    const answer = await send("POST", "/v1/episodes/batch", { episodes: [episode] });
    expect(answer.body).toMatchObject({
      error: { details: [{ type: "value_error", loc: ["body", "episodes", "3"] }] },
    });
  });

  it("an unknown compile job is a 404 not_found", async () => {
    const { send } = appWith(new CompileJobNotFoundError("j1"));
    expect(await send("GET", "/v1/memories/compile/j1")).toMatchObject({
      status: 404,
      body: {
        error: { code: "not_found", message: "Job not found or expired", request_id: "req-1" },
      },
    });
  });

  it("a compile that skipped episodes is a 422 compile_failed naming them", async () => {
    const error = new CompileEpisodeError(
      "s",
      [{ episodeId: "e1", type: "note", reason: "the database refused it" }],
      2,
    );
    const { send } = appWith(error);
    expect(await send("POST", "/v1/memories/compile", { subject_id: "s" })).toEqual({
      status: 422,
      requestId: "req-1",
      contentType: "application/json",
      body: {
        error: {
          code: "compile_failed",
          message: error.message,
          details: {
            subject_id: "s",
            memories_created: 2,
            skipped_episodes: [
              { episode_id: "e1", type: "note", reason: "the database refused it" },
            ],
          },
          request_id: "req-1",
        },
      },
    });
  });

  it.each([
    [new StoreClosedError(":memory:"), "The store is closed"],
    [
      new PostgresConnectionError("postgres://db", "refused", "Start it."),
      "The database is unavailable",
    ],
  ])("%s is a 503 service_unavailable that leaks nothing internal", async (error, message) => {
    const { send } = appWith(error);
    expect((await send("GET", "/v1/subjects")).body).toEqual({
      error: { code: "service_unavailable", message, request_id: "req-1" },
    });
  });

  it("anything else is a 500 internal_error, told to onUnexpectedError only", async () => {
    const seen: unknown[] = [];
    const boom = new Error("SQLITE_CORRUPT at /secret/path");
    const { send } = appWith(boom, { onUnexpectedError: (error) => seen.push(error) });
    const answer = await send("POST", "/v1/episodes", episode);
    expect(answer).toEqual({
      status: 500,
      requestId: "req-1",
      contentType: "application/json",
      body: {
        error: {
          code: "internal_error",
          message: "An unexpected error occurred",
          request_id: "req-1",
        },
      },
    });
    expect(seen).toEqual([boom]);
    // Without a listener it is still a 500.
    expect((await appWith(boom).send("GET", "/v1/subjects")).status).toBe(500);
  });
});

describe("createApp: request ids, tenants, hosts and limits", () => {
  it("generates an id for an empty X-Request-ID, and echoes a given one", async () => {
    const { send } = appWith(new StoreClosedError("x"));
    expect((await send("GET", "/healthz", undefined, { "X-Request-ID": "" })).requestId).toBe(
      "req-1",
    );
    const given = await send("GET", "/v1/nowhere", undefined, { "X-Request-ID": "mine" });
    expect(given).toEqual({
      status: 404,
      requestId: "mine",
      contentType: "application/json",
      body: { error: { code: "http_error", message: "Not Found", request_id: "mine" } },
    });
  });

  it("makes distinct 16-hex ids by default, past one pool of random bytes", async () => {
    const app = createApp({ store: failingStore(new Error("x")).store });
    const ids = new Set<string>();
    for (let index = 0; index < 600; index += 1) {
      const response = await app.fetch(new Request("http://test/healthz"));
      const id = response.headers.get("x-request-id") ?? "";
      expect(id).toMatch(/^[0-9a-f]{16}$/);
      ids.add(id);
    }
    expect(ids.size).toBe(600);
  });

  it("scopes each request to its X-Tenant-ID, and readiness to the default tenant", async () => {
    const { send, tenants } = appWith(new StoreClosedError("x"));
    await send("GET", "/v1/subjects", undefined, { "X-Tenant-ID": "acme" });
    await send("GET", "/v1/subjects");
    tenants.length = 0;
    const ready = await send("GET", "/readyz", undefined, { "X-Tenant-ID": "acme" });
    expect(ready.status).toBe(503);
    expect(tenants.at(-1)).toBeNull();
    const { send: sendAgain, tenants: seen } = appWith(new StoreClosedError("x"));
    await sendAgain("GET", "/v1/subjects", undefined, { "X-Tenant-ID": "acme" });
    await sendAgain("GET", "/v1/subjects");
    expect(seen).toEqual(["acme", null]);
  });

  it("answers a Host the check refuses with 403 host_not_allowed, quoting it", async () => {
    const hosts: Array<string | undefined> = [];
    const { send } = appWith(new StoreClosedError("x"), {
      isAllowedHost: (host) => {
        hosts.push(host);
        return host === "ok.test";
      },
    });
    const refused = await send("GET", "/healthz", undefined, { Host: "evil.test" });
    expect(refused).toMatchObject({ status: 403, requestId: "req-1" });
    expect(refused.body).toEqual({
      error: {
        code: "host_not_allowed",
        message:
          'Host "evil.test" is not allowed. This server answers only requests addressed to its own loopback address, so that a web page cannot reach it through DNS rebinding; start it with --allowed-host <name> to accept another name.',
        request_id: "req-1",
      },
    });
    expect((await send("GET", "/healthz", undefined, { Host: "ok.test" })).status).toBe(200);
    const long = await send("GET", "/healthz", undefined, { Host: `${"h".repeat(300)}.test` });
    expect((long.body as { error: { message: string } }).error.message).toContain(
      `Host "${"h".repeat(200)}" is not allowed.`,
    );
    expect(hosts).toEqual(["evil.test", "ok.test", `${"h".repeat(300)}.test`]);
  });

  it("says (none) when the request has no Host", async () => {
    const { send } = appWith(new StoreClosedError("x"), { isAllowedHost: () => false });
    const answer = await send("GET", "/healthz");
    expect((answer.body as { error: { message: string } }).error.message).toMatch(
      /^Host \(none\) is not allowed\./,
    );
  });

  it("refuses bodies over maxBodyBytes with a 413", async () => {
    const store = new EmbeddedStore({ path: ":memory:" });
    try {
      const app = createApp({ store, maxBodyBytes: 10, generateRequestId: () => "req-1" });
      const response = await app.fetch(
        new Request("http://test/v1/episodes", {
          method: "POST",
          headers: { "Content-Type": "application/json", "Content-Length": "11" },
          body: '{"a":"xxx"}',
        }),
      );
      expect(response.status).toBe(413);
      expect(await response.json()).toEqual({
        error: {
          code: "payload_too_large",
          message: "Request body is larger than 10 bytes",
          request_id: "req-1",
        },
      });
    } finally {
      await store.close();
    }
  });
});
