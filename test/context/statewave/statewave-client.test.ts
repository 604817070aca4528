import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { CompileTimeoutError } from "../../../src/context/errors/compile-timeout-error.js";
import { StatewaveAPIError } from "../../../src/context/statewave/errors/statewave-api-error.js";
import { StatewaveConnectionError } from "../../../src/context/statewave/errors/statewave-connection-error.js";
import { StatewaveTimeoutError } from "../../../src/context/statewave/errors/statewave-timeout-error.js";
import {
  StatewaveClient,
  type StatewaveClientOptions,
} from "../../../src/context/statewave/statewave-client.js";

/** One scripted answer of the tiny loopback server. */
interface Answer {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
  /** Never answer (for timeouts). */
  hang?: boolean;
}

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage["headers"];
  body: string;
}

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(
    servers.splice(0).map(
      (server) =>
        new Promise<void>((resolve) => {
          server.closeAllConnections();
          server.close(() => resolve());
        }),
    ),
  );
});

/** A real HTTP server on 127.0.0.1:0 that answers from a script (the last answer repeats). */
async function scriptedServer(script: Answer[]): Promise<{ url: string; seen: Seen[] }> {
  const seen: Seen[] = [];
  const server = createServer((request, response) => {
    let body = "";
    request.on("data", (chunk: Buffer) => {
      body += chunk.toString();
    });
    request.on("end", () => {
      seen.push({
        method: request.method ?? "",
        url: request.url ?? "",
        headers: request.headers,
        body,
      });
      const answer = script[Math.min(seen.length - 1, script.length - 1)];
      if (!answer || answer.hang) return;
      response.writeHead(answer.status, { "Content-Type": "application/json", ...answer.headers });
      response.end(answer.body === undefined ? "" : JSON.stringify(answer.body));
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, seen };
}

function clientFor(url: string, options: StatewaveClientOptions = {}) {
  const delays: number[] = [];
  const client = new StatewaveClient({
    baseUrl: `${url}/`,
    random: () => 0.5,
    delay: async (ms) => {
      delays.push(ms);
    },
    ...options,
  });
  return { client, delays };
}

const episodeWire = {
  id: "0b9f5f9e-6a43-4c1e-9d0a-2f1c1e8c6b11",
  subject_id: "s",
  source: "agent",
  type: "note",
  payload: { camelKey: { inner_key: 1 } },
  metadata: { some_key: true },
  provenance: {},
  session_id: null,
  created_at: "2026-11-29T19:06:45.506625Z",
};

describe("StatewaveClient", () => {
  describe("requests", () => {
    it("sends snake_case JSON with Content-Type, X-API-Key and X-Tenant-ID; maps the answer to camelCase", async () => {
      const { url, seen } = await scriptedServer([{ status: 201, body: episodeWire }]);
      const { client } = clientFor(url, { apiKey: "k", tenantId: "t1" });
      const episode = await client.createEpisode({
        subjectId: "s",
        source: "agent",
        type: "note",
        payload: { camelKey: { inner_key: 1 } },
        sessionId: "sess",
      });
      expect(seen).toHaveLength(1);
      const [request] = seen;
      expect(request?.method).toBe("POST");
      expect(request?.url).toBe("/v1/episodes");
      expect(request?.headers["content-type"]).toBe("application/json");
      expect(request?.headers["x-api-key"]).toBe("k");
      expect(request?.headers["x-tenant-id"]).toBe("t1");
      expect(JSON.parse(request?.body ?? "")).toEqual({
        subject_id: "s",
        source: "agent",
        type: "note",
        payload: { camelKey: { inner_key: 1 } },
        metadata: {},
        provenance: {},
        session_id: "sess",
        // Retries are on: a key of the call's own, so a retry is stored once.
        idempotency_key: expect.any(String),
      });
      expect(episode).toEqual({
        id: episodeWire.id,
        subjectId: "s",
        source: "agent",
        type: "note",
        payload: { camelKey: { inner_key: 1 } },
        metadata: { some_key: true },
        provenance: {},
        sessionId: null,
        createdAt: episodeWire.created_at,
      });
    });

    it("builds query strings and encodes path ids; no Content-Type without a body", async () => {
      const { url, seen } = await scriptedServer([
        { status: 200, body: { memories: [] } },
        { status: 200, body: { subject_id: "a/b", episodes_deleted: 0, memories_deleted: 0 } },
      ]);
      const { client } = clientFor(url);
      await client.searchMemories({
        subjectId: "a b",
        kind: "review_finding",
        query: "x&y",
        limit: 5,
      });
      await client.deleteSubject("a/b");
      expect(seen[0]?.url).toBe(
        "/v1/memories/search?subject_id=a+b&kind=review_finding&q=x%26y&limit=5",
      );
      expect(seen[0]?.headers["content-type"]).toBeUndefined();
      expect(seen[0]?.headers["x-tenant-id"]).toBeUndefined();
      expect(seen[1]?.method).toBe("DELETE");
      expect(seen[1]?.url).toBe("/v1/subjects/a%2Fb");
    });
  });

  describe("retries", () => {
    it("retries 429 (honouring Retry-After) and 503, then succeeds", async () => {
      const { url, seen } = await scriptedServer([
        {
          status: 429,
          body: { error: { code: "rate_limited", message: "slow down" } },
          headers: { "Retry-After": "2" },
        },
        { status: 503, body: { error: { code: "internal_error", message: "busy" } } },
        { status: 201, body: episodeWire },
      ]);
      const { client, delays } = clientFor(url);
      const episode = await client.createEpisode({
        subjectId: "s",
        source: "a",
        type: "t",
        payload: {},
      });
      expect(episode.id).toBe(episodeWire.id);
      expect(seen).toHaveLength(3);
      // Retry-After: 2 s; then backoff 0.5 s * 2^1 with jitter (1 - 0.5 * 0.25).
      expect(delays).toEqual([2000, 875]);
    });

    it.each([408, 409, 500, 502, 504])("retries %i", async (status) => {
      const { url, seen } = await scriptedServer([
        { status },
        { status: 200, body: { memories: [] } },
      ]);
      const { client } = clientFor(url);
      await client.searchMemories({ subjectId: "s" });
      expect(seen).toHaveLength(2);
    });

    it("ignores a Retry-After over 60 s and uses backoff", async () => {
      const { url } = await scriptedServer([
        { status: 429, headers: { "Retry-After": "3600" } },
        { status: 200, body: { memories: [] } },
      ]);
      const { client, delays } = clientFor(url);
      await client.searchMemories({ subjectId: "s" });
      expect(delays).toEqual([437.5]);
    });

    it("gives up after maxRetries with the last StatewaveAPIError", async () => {
      const { url, seen } = await scriptedServer([
        {
          status: 500,
          body: { error: { code: "internal_error", message: "boom", request_id: "abcd" } },
        },
      ]);
      const { client, delays } = clientFor(url, { maxRetries: 2 });
      const error = await client.listSubjects().catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(StatewaveAPIError);
      expect(error).toMatchObject({ statusCode: 500, code: "internal_error", requestId: "abcd" });
      expect(seen).toHaveLength(3);
      expect(delays).toEqual([437.5, 875]);
    });

    it("does not retry a 422 and keeps code, details and request id", async () => {
      const details = [{ type: "missing", loc: ["body", "subject_id"], msg: "Field required" }];
      const { url, seen } = await scriptedServer([
        {
          status: 422,
          body: {
            error: {
              code: "validation_error",
              message: "Request validation failed",
              details,
              request_id: "f349773a02f341f3",
            },
          },
        },
      ]);
      const { client } = clientFor(url);
      const error = await client.getTimeline("s").catch((caught: unknown) => caught);
      expect(seen).toHaveLength(1);
      expect(error).toMatchObject({
        name: "StatewaveAPIError",
        statusCode: 422,
        code: "validation_error",
        requestId: "f349773a02f341f3",
        details,
      });
    });

    it("reads Statewave v0.7.1's bare job-404 body as code 'unknown'", async () => {
      const { url } = await scriptedServer([
        {
          status: 404,
          body: { error: "Job not found or expired" },
          headers: { "X-Request-ID": "0123456789abcdef" },
        },
      ]);
      const { client } = clientFor(url);
      const error = await client.getCompileStatus("deadbeef").catch((caught: unknown) => caught);
      expect(error).toMatchObject({
        statusCode: 404,
        code: "unknown",
        requestId: "0123456789abcdef",
      });
      expect((error as Error).message).toContain("Job not found or expired");
    });

    it("honours x-should-retry: false", async () => {
      const { url, seen } = await scriptedServer([
        { status: 503, headers: { "x-should-retry": "false" } },
      ]);
      const { client } = clientFor(url);
      await expect(client.listSubjects()).rejects.toBeInstanceOf(StatewaveAPIError);
      expect(seen).toHaveLength(1);
    });
  });

  describe("connection failures", () => {
    it("names the URL and suggests `npx shared-ctx serve` when nothing listens", async () => {
      const { url } = await scriptedServer([]);
      await new Promise<void>((resolve) => servers.pop()?.close(() => resolve()));
      const { client, delays } = clientFor(url, { maxRetries: 2 });
      const error = await client.listSubjects().catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(StatewaveConnectionError);
      expect((error as StatewaveConnectionError).url).toBe(url);
      expect((error as Error).message).toContain(url);
      expect((error as Error).message).toContain("ECONNREFUSED");
      expect((error as Error).message).toContain("npx shared-ctx serve");
      expect((error as Error).message).toContain("STATEWAVE_URL");
      expect(delays).toHaveLength(2);
    });

    it("times out a request that gets no answer", async () => {
      const { url } = await scriptedServer([{ status: 200, hang: true }]);
      // Attempts are counted at the client: on a loaded machine a 50 ms timeout can fire before
      // the server's handler has even run, so the server's count says nothing here.
      let attempts = 0;
      const { client } = clientFor(url, {
        timeoutMs: 50,
        maxRetries: 1,
        fetch: (input, init) => {
          attempts += 1;
          return globalThis.fetch(input, init);
        },
      });
      const error = await client.listSubjects().catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(StatewaveTimeoutError);
      expect(error).toBeInstanceOf(StatewaveConnectionError);
      expect(attempts).toBe(2);
    });

    it("rejects with the caller's abort reason and does not retry", async () => {
      const { url, seen } = await scriptedServer([{ status: 200, hang: true }]);
      const { client, delays } = clientFor(url);
      const controller = new AbortController();
      const pending = client.listSubjects({}, { signal: controller.signal });
      await new Promise<void>((resolve) => {
        const check = () => (seen.length > 0 ? resolve() : setTimeout(check, 5));
        check();
      });
      controller.abort(new Error("user gave up"));
      await expect(pending).rejects.toThrow("user gave up");
      expect(delays).toEqual([]);
    });
  });

  describe("compileMemoriesWait", () => {
    it("polls until completed", async () => {
      const { url, seen } = await scriptedServer([
        { status: 202, body: { job_id: "j1", status: "pending", subject_id: "s" } },
        { status: 200, body: { job_id: "j1", status: "running", subject_id: "s" } },
        {
          status: 200,
          body: {
            job_id: "j1",
            status: "completed",
            subject_id: "s",
            memories_created: 0,
            memories: [],
          },
        },
      ]);
      const { client, delays } = clientFor(url);
      const job = await client.compileMemoriesWait("s", { pollInterval: 7 });
      expect(job).toEqual({
        jobId: "j1",
        status: "completed",
        subjectId: "s",
        memoriesCreated: 0,
        memories: [],
      });
      expect(JSON.parse(seen[0]?.body ?? "")).toEqual({ subject_id: "s", async: true });
      expect(seen.map((request) => request.url)).toEqual([
        "/v1/memories/compile",
        "/v1/memories/compile/j1",
        "/v1/memories/compile/j1",
      ]);
      expect(delays).toEqual([7, 7]);
    });

    it("returns a job that ends failed, with the server's error, and stops polling", async () => {
      const { url, seen } = await scriptedServer([
        { status: 202, body: { job_id: "j3", status: "pending", subject_id: "s" } },
        {
          status: 200,
          body: { job_id: "j3", status: "failed", subject_id: "s", error: "episode e1 unreadable" },
        },
        { status: 500, body: { error: { code: "unexpected", message: "polled after failed" } } },
      ]);
      const { client, delays } = clientFor(url);
      const job = await client.compileMemoriesWait("s", { pollInterval: 5 });
      expect(job).toMatchObject({
        jobId: "j3",
        status: "failed",
        subjectId: "s",
        error: "episode e1 unreadable",
      });
      expect(seen.map((request) => request.url)).toEqual([
        "/v1/memories/compile",
        "/v1/memories/compile/j3",
      ]);
      expect(delays).toEqual([5]);
    });

    it("throws CompileTimeoutError when the job never finishes", async () => {
      const { url } = await scriptedServer([
        { status: 200, body: { job_id: "j2", status: "running", subject_id: "s" } },
      ]);
      let now = 0;
      const { client } = clientFor(url, {
        now: () => now,
        delay: async (ms) => {
          now += ms;
        },
      });
      await expect(
        client.compileMemoriesWait("s", { pollInterval: 400, timeout: 1000 }),
      ).rejects.toBeInstanceOf(CompileTimeoutError);
    });
  });
});

describe("StatewaveClient: the official SDK's call shapes on the wire", () => {
  it("takes a bare URL, sends getContext's set fields only, and query as q", async () => {
    const { url, seen } = await scriptedServer([
      {
        status: 200,
        body: {
          subject_id: "s",
          task: "t",
          facts: [],
          episodes: [],
          procedures: [],
          provenance: { fact_ids: [] },
          assembled_context: "## Task\nt\n",
          token_estimate: 3,
          sessions: [],
        },
      },
      { status: 200, body: { memories: [] } },
      { status: 200, body: { subject_id: "s", episodes: [], memories: [] } },
    ]);
    const client = new StatewaveClient(`${url}//`);
    expect(client.baseUrl).toBe(url);
    expect(
      await client.getContextString({ subjectId: "s", task: "t", maxTokens: 50, callerId: "me" }),
    ).toBe("## Task\nt\n");
    expect(JSON.parse(seen[0]?.body ?? "")).toEqual({
      subject_id: "s",
      task: "t",
      max_tokens: 50,
      caller_id: "me",
    });
    expect(
      await client.searchMemories({ subjectId: "s", query: "jwt", semantic: true, limit: 3 }),
    ).toEqual({
      memories: [],
    });
    expect(seen[1]?.url).toBe("/v1/memories/search?subject_id=s&q=jwt&semantic=true&limit=3");
    const controller = new AbortController();
    // The SDK's older shape: options as the second argument.
    await client.getTimeline("s", { signal: controller.signal });
    await client.getTimeline("s", { limit: 20, newestFirst: true });
    expect(seen.slice(2).map((request) => request.url)).toEqual([
      "/v1/timeline?subject_id=s",
      "/v1/timeline?subject_id=s&limit=20&newest_first=true",
    ]);
  });

  it("honours retry: false and retry.retryOnStatus", async () => {
    const failing = await scriptedServer([
      { status: 503, body: { error: { code: "busy", message: "busy" } } },
    ]);
    const noRetry = new StatewaveClient({ baseUrl: failing.url, retry: false });
    const error = await noRetry.listSubjects().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(StatewaveAPIError);
    expect((error as StatewaveAPIError).message).toBe("[503] busy: busy");
    expect(failing.seen).toHaveLength(1);

    const teapot = await scriptedServer([
      { status: 418 },
      { status: 200, body: { subjects: [], total: 0 } },
    ]);
    const { client, delays } = clientFor(teapot.url, {
      retry: { retryOnStatus: [418], backoffBase: 100, jitter: false },
    });
    expect(await client.listSubjects()).toEqual({ subjects: [], total: 0 });
    expect(delays).toEqual([100]);
  });

  it("constructs StatewaveAPIError as the SDK does", () => {
    const error = new StatewaveAPIError(
      404,
      "unknown",
      "Job not found or expired",
      undefined,
      "req-1",
    );
    expect(error).toMatchObject({
      statusCode: 404,
      code: "unknown",
      requestId: "req-1",
      name: "StatewaveAPIError",
    });
    expect(error.message).toBe("[404] unknown: Job not found or expired");
    expect(error).toBeInstanceOf(Error);
  });
});
