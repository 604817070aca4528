import { describe, expect, it } from "vitest";
import type { StoreChange } from "../../../src/context/context-store.js";
import { CompileTimeoutError } from "../../../src/context/errors/compile-timeout-error.js";
import {
  StatewaveClient,
  type StatewaveClientOptions,
} from "../../../src/context/statewave/statewave-client.js";
import type { TimelineParams } from "../../../src/context/statewave/statewave-types.js";

/** One request as the server would see it. */
interface Sent {
  method: string;
  path: string;
  query: Record<string, string>;
  headers: Record<string, string>;
  body: unknown;
}

/** A tiny in-memory Statewave behind an injected `fetch`, recording every request. */
function fakeStatewave() {
  const sent: Sent[] = [];
  const episodes: Record<string, unknown>[] = [];
  const memories: Record<string, unknown>[] = [];
  /** While set, timeline reads wait for it (to hold a watch's baseline). */
  let timelineGate: Promise<void> | undefined;
  /** Answers of `GET /v1/memories/compile/:id`, in order (the last repeats). */
  const jobStatuses: string[] = ["completed"];
  let statusReads = 0;

  const json = (status: number, body: unknown) =>
    new Response(JSON.stringify(body), {
      status,
      headers: { "Content-Type": "application/json" },
    });
  const compiledMemory = () => {
    const memory = {
      id: `m-${memories.length + 1}`,
      subject_id: "s",
      kind: "episode_summary",
      content: "compiled",
      summary: "compiled",
      confidence: 0.8,
      valid_from: "2026-11-30T14:04:41Z",
      valid_to: null,
      source_episode_ids: [],
      metadata: {},
      status: "active",
      created_at: "2026-11-30T14:04:42Z",
      updated_at: "2026-11-30T14:04:42Z",
    };
    memories.push(memory);
    return memory;
  };

  const answer = async (url: URL, init: RequestInit): Promise<Response> => {
    const method = init.method ?? "GET";
    const body = typeof init.body === "string" ? JSON.parse(init.body) : undefined;
    sent.push({
      method,
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      headers: { ...(init.headers as Record<string, string>) },
      body,
    });
    if (method === "GET" && url.pathname === "/v1/timeline") {
      await timelineGate;
      return json(200, { subject_id: url.searchParams.get("subject_id"), episodes, memories });
    }
    if (method === "POST" && url.pathname === "/v1/episodes") {
      const episode = {
        id: `e-${episodes.length + 1}`,
        ...body,
        created_at: "2026-11-30T14:04:41Z",
      };
      episodes.push(episode);
      return json(201, episode);
    }
    if (method === "POST" && url.pathname === "/v1/memories/compile") {
      if (body.async) return json(202, { job_id: "job-1", status: "pending", subject_id: "s" });
      const memory = compiledMemory();
      return json(200, { subject_id: "s", memories_created: 1, memories: [memory] });
    }
    if (method === "GET" && url.pathname === "/v1/memories/compile/job-1") {
      const status = jobStatuses[Math.min(statusReads++, jobStatuses.length - 1)] ?? "completed";
      const done =
        status === "completed" ? { memories_created: 1, memories: [compiledMemory()] } : {};
      return json(200, { job_id: "job-1", status, subject_id: "s", ...done });
    }
    if (method === "GET" && url.pathname === "/v1/subjects") {
      return json(200, { subjects: [], total: 0 });
    }
    return json(404, { error: { code: "not_found", message: "no route" } });
  };

  const fetchDouble = (input: string | URL | Request, init: RequestInit = {}) => {
    const signal = init.signal;
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise<Response>((resolve, reject) => {
      signal?.addEventListener("abort", () => reject(signal.reason), { once: true });
      answer(new URL(String(input)), init).then(resolve, reject);
    });
  };

  return {
    sent,
    jobStatuses,
    fetch: fetchDouble as typeof fetch,
    holdTimeline(): () => void {
      let release: () => void = () => undefined;
      timelineGate = new Promise<void>((resolve) => {
        release = () => {
          timelineGate = undefined;
          resolve();
        };
      });
      return () => release();
    },
  };
}

/** Lets pending promise chains and the fake server's answers run. */
async function settle(): Promise<void> {
  for (let round = 0; round < 20; round++) await new Promise((resolve) => setImmediate(resolve));
}

function clientOf(server: ReturnType<typeof fakeStatewave>, options: StatewaveClientOptions = {}) {
  return new StatewaveClient({
    baseUrl: "http://statewave.test",
    fetch: server.fetch,
    // Polls only when a write asks for it: the tests see exactly the reads the client makes.
    pollIntervalMs: 1_000_000,
    delay: async () => undefined,
    ...options,
  });
}

const note = { subjectId: "s", source: "agent", type: "note", payload: { text: "hi" } };

function timelineReads(sent: Sent[]): number {
  return sent.filter((request) => request.path === "/v1/timeline").length;
}

describe("StatewaveClient settings", () => {
  it("sends the tenant on every request and waits the configured, capped backoff between retries", async () => {
    const waits: number[] = [];
    let calls = 0;
    const headers: Record<string, string>[] = [];
    const client = new StatewaveClient({
      baseUrl: "http://statewave.test",
      tenantId: "acme",
      retry: { maxRetries: 3, backoffBase: 1000, backoffMax: 1500, jitter: false },
      random: () => 0,
      delay: async (ms) => {
        waits.push(ms);
      },
      fetch: (async (_input: unknown, init: RequestInit) => {
        headers.push({ ...(init.headers as Record<string, string>) });
        calls++;
        return calls < 4
          ? new Response("{}", { status: 503 })
          : new Response(JSON.stringify({ subjects: [], total: 0 }), { status: 200 });
      }) as typeof fetch,
    });
    await expect(client.listSubjects()).resolves.toEqual({ subjects: [], total: 0 });
    expect(waits).toEqual([1000, 1500, 1500]);
    expect(headers.map((sent) => sent["X-Tenant-ID"])).toEqual(["acme", "acme", "acme", "acme"]);
  });
});

describe("StatewaveClient requests", () => {
  it("sends a session id and an idempotency key when given, and no session for null", async () => {
    const server = fakeStatewave();
    const client = clientOf(server);
    await client.createEpisode({ ...note, sessionId: "sess-1", idempotencyKey: "key-1" });
    // An episode read back carries `sessionId: null`; a caller that copies it must not send it.
    await client.createEpisode({ ...note, sessionId: null as unknown as string });
    await client.createEpisode(note);
    const bodies = server.sent.map((request) => request.body);
    const base = {
      subject_id: "s",
      source: "agent",
      type: "note",
      payload: { text: "hi" },
      metadata: {},
      provenance: {},
    };
    // Without a key of its own, each call gets a fresh one (retries are on), the same on every
    // attempt of that call.
    expect(bodies).toEqual([
      { ...base, session_id: "sess-1", idempotency_key: "key-1" },
      { ...base, idempotency_key: expect.any(String) },
      { ...base, idempotency_key: expect.any(String) },
    ]);
    expect(bodies[1]).not.toEqual(bodies[2]);
  });

  it("pages the subject list with limit and offset", async () => {
    const server = fakeStatewave();
    await clientOf(server).listSubjects({ limit: 2, offset: 4 });
    expect(server.sent.map(({ method, path, query }) => ({ method, path, query }))).toEqual([
      { method: "GET", path: "/v1/subjects", query: { limit: "2", offset: "4" } },
    ]);
  });

  it("takes a second argument carrying only a signal as the request options", async () => {
    const server = fakeStatewave();
    const client = clientOf(server);
    const stopped = AbortSignal.abort(new Error("caller stopped"));
    await expect(client.getTimeline("s", { signal: stopped })).rejects.toThrow("caller stopped");
  });

  it("with three arguments takes the second as params and the third as the options", async () => {
    const server = fakeStatewave();
    const client = clientOf(server);
    // A params object that happens to carry a `signal` is still params when options follow.
    const params = { limit: 5, signal: AbortSignal.abort(new Error("not mine")) } as TimelineParams;
    await client.getTimeline("s", params, { signal: new AbortController().signal });
    expect(server.sent[0]?.query).toEqual({ subject_id: "s", limit: "5" });
  });

  it("gives up waiting for a compile job once exactly `timeout` ms have passed", async () => {
    const server = fakeStatewave();
    const times = [0, 1000];
    const client = clientOf(server, { now: () => times.shift() ?? 1000 });
    const error = await client
      .compileMemoriesWait("s", { timeout: 1000, pollInterval: 10 })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(CompileTimeoutError);
    // The job was started, never polled.
    expect(server.sent.map((request) => request.path)).toEqual(["/v1/memories/compile"]);
  });
});

describe("StatewaveClient writes and watches", () => {
  it("holds a write issued after watch() until the watch's baseline is read", async () => {
    const server = fakeStatewave();
    const client = clientOf(server);
    const release = server.holdTimeline();
    const seen: StoreChange[] = [];
    client.watch("s", (change) => seen.push(change));
    const written = client.createEpisode(note);
    await settle();
    expect(server.sent.map((request) => request.method)).not.toContain("POST");
    release();
    const episode = await written;
    // Not part of the baseline: delivered live, before the write resolved.
    expect(seen).toEqual([{ type: "episode", episode }]);
    await client.close();
  });

  it.each(["compileMemories", "compileMemoriesWait"] as const)(
    "%s delivers the new memories to this client's watchers before it resolves",
    async (method) => {
      const server = fakeStatewave();
      server.jobStatuses.splice(0, 1, "running", "completed");
      const client = clientOf(server);
      const seen: StoreChange[] = [];
      client.watch("s", (change) => seen.push(change));
      await settle();
      await client[method]("s");
      expect(seen.map((change) => change.type)).toEqual(["memory"]);
      await client.close();
    },
  );

  it("closing the last watch of a subject stops its poller, and a new watch reads a new baseline", async () => {
    const server = fakeStatewave();
    const client = clientOf(server);
    const first = client.watch("s", () => undefined);
    await settle();
    first.close();
    await settle();
    const before = timelineReads(server.sent);
    await client.createEpisode(note);
    expect(timelineReads(server.sent)).toBe(before);
    const seen: StoreChange[] = [];
    client.watch("s", (change) => seen.push(change), { replay: true });
    await settle();
    expect(timelineReads(server.sent)).toBeGreaterThan(before);
    expect(seen.map((change) => change.type)).toEqual(["episode"]);
    await client.close();
  });

  it("closing one watch keeps the poller for a watch still waiting to join", async () => {
    const server = fakeStatewave();
    const client = clientOf(server);
    const first = client.watch("s", () => undefined);
    await settle();
    const seen: StoreChange[] = [];
    client.watch("s", (change) => seen.push(change));
    first.close();
    await settle();
    const episode = await client.createEpisode(note);
    expect(seen).toEqual([{ type: "episode", episode }]);
    await client.close();
  });

  it("closing a watch while others are still joined leaves the poller to the last one to leave", async () => {
    const server = fakeStatewave();
    const client = clientOf(server);
    const first = client.watch("s", () => undefined);
    const second = client.watch("s", () => undefined);
    await settle();
    first.close();
    // Joins after the first close; the second close is then the last to leave.
    const seen: StoreChange[] = [];
    client.watch("s", (change) => seen.push(change));
    second.close();
    await settle();
    const episode = await client.createEpisode(note);
    expect(seen).toEqual([{ type: "episode", episode }]);
    await client.close();
  });

  it("closing a watch twice does not take the poller from a watch that joined in between", async () => {
    const server = fakeStatewave();
    const client = clientOf(server);
    const first = client.watch("s", () => undefined);
    const second = client.watch("s", () => undefined);
    await settle();
    first.close();
    const third = client.watch("s", () => undefined);
    second.close();
    // After the second close's check (which the third, joined by then, passes), the third leaves
    // as a fourth joins; only then does the first close again.
    const seen: StoreChange[] = [];
    queueMicrotask(() => {
      client.watch("s", (change) => seen.push(change));
      third.close();
    });
    first.close();
    await settle();
    const episode = await client.createEpisode(note);
    expect(seen).toEqual([{ type: "episode", episode }]);
    await client.close();
  });

  it("closing a watch after close() leaves the subject's next poller alone", async () => {
    const server = fakeStatewave();
    const client = clientOf(server);
    const old = client.watch("s", () => undefined);
    await settle();
    old.close();
    void client.close();
    const seen: StoreChange[] = [];
    client.watch("s", (change) => seen.push(change));
    await settle();
    const episode = await client.createEpisode(note);
    expect(seen).toEqual([{ type: "episode", episode }]);
    await client.close();
  });

  it("close() stops every watch: writes no longer poll and listeners hear nothing", async () => {
    const server = fakeStatewave();
    const client = clientOf(server);
    const seen: StoreChange[] = [];
    client.watch("s", (change) => seen.push(change));
    client.watch("t", (change) => seen.push(change));
    await settle();
    await client.close();
    const before = timelineReads(server.sent);
    await client.createEpisode(note);
    await settle();
    expect(timelineReads(server.sent)).toBe(before);
    expect(seen).toEqual([]);
  });
});
