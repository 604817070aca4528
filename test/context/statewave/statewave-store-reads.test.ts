import { afterEach, describe, expect, it } from "vitest";
import type { CreateEpisodeInput, StoreChange } from "../../../src/context/context-store.js";
import { EmbeddedStore } from "../../../src/context/embedded/embedded-store.js";
import { CompileTimeoutError } from "../../../src/context/errors/compile-timeout-error.js";
import { StatewaveAPIError } from "../../../src/context/statewave/errors/statewave-api-error.js";
import { StatewaveClient } from "../../../src/context/statewave/statewave-client.js";
import { StatewaveStore } from "../../../src/context/statewave/statewave-store.js";
import { createApp } from "../../../src/server/app.js";
import { createStatewaveEmulator } from "../../../src/server/compat/statewave-v0-7-1.js";

/**
 * What StatewaveStore's reads and writes send and return, seen from the wire: on `shared-ctx serve`
 * (which pages and indexes shared-ctx's kinds) and on an emulated Statewave v0.7.1 (which does
 * neither). Every request is recorded: method, path, query and JSON body.
 */
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

type Recorded = { method: string; path: string; query: URLSearchParams; body: unknown };

function recording(inner: typeof fetch) {
  const requests: Recorded[] = [];
  const fetch: typeof globalThis.fetch = async (input, init) => {
    const url = new URL(String(input));
    const text = typeof init?.body === "string" ? init.body : undefined;
    requests.push({
      method: init?.method ?? "GET",
      path: url.pathname,
      query: url.searchParams,
      body: text === undefined ? undefined : JSON.parse(text),
    });
    return inner(input, init);
  };
  return { fetch, requests };
}

function serve() {
  const embedded = new EmbeddedStore({ path: ":memory:" });
  cleanups.push(() => embedded.close());
  const app = createApp({ store: embedded });
  return recording(async (input, init) => app.fetch(new Request(input, init)));
}

function emulated() {
  return recording(createStatewaveEmulator().clientFetch);
}

/** Watches poll only when told to: every delivery in these tests comes from a write's own poll. */
function storeOver(fetch: typeof globalThis.fetch) {
  const store = new StatewaveStore({ fetch, pollIntervalMs: 60_000 });
  cleanups.push(() => store.close());
  return store;
}

function decision(content: string, target = "cache"): CreateEpisodeInput {
  return {
    subjectId: "run",
    source: "planner",
    type: "architectural_decision",
    payload: { content, target },
  };
}

/** A server whose async compile job reports each of `statuses` in turn, then stays at the last. */
function compileJobServer(statuses: string[]): typeof fetch {
  const json = (status: number, body: unknown) =>
    new Response(JSON.stringify(body), {
      status,
      headers: { "content-type": "application/json" },
    });
  return async (input, init) => {
    const path = new URL(String(input)).pathname;
    if (init?.method === "POST" && path === "/v1/memories/compile") {
      return json(202, { job_id: "job-1", status: "pending", subject_id: "run" });
    }
    if (path === "/v1/memories/compile/job-1") {
      const status = statuses.length > 1 ? statuses.shift() : statuses[0];
      return json(200, { job_id: "job-1", status, subject_id: "run" });
    }
    return json(404, { error: { code: "not_found", message: path } });
  };
}

function searches(requests: readonly Recorded[]) {
  return requests
    .filter((request) => request.path === "/v1/memories/search")
    .map((request) => Object.fromEntries(request.query));
}

describe("StatewaveStore reads and writes on the wire", () => {
  describe("searchMemories", () => {
    it("asks serve for one of our kinds directly, once, with the caller's limit", async () => {
      const server = serve();
      const store = storeOver(server.fetch);
      await store.createEpisode(decision("Keep the cache"));
      await store.compileMemories("run");
      server.requests.length = 0;
      const found = await store.searchMemories("run", { kind: "architectural_decision", limit: 5 });
      expect(found.map((memory) => [memory.kind, memory.content])).toEqual([
        ["architectural_decision", "Keep the cache"],
      ]);
      expect(searches(server.requests)).toEqual([
        { subject_id: "run", kind: "architectural_decision", limit: "5" },
      ]);
    });

    it("asks for Statewave's own kinds by name, and for no kind with the caller's limit", async () => {
      const server = serve();
      const store = storeOver(server.fetch);
      await store.searchMemories("run", { kind: "procedure", limit: 5 });
      await store.searchMemories("run", { limit: 5 });
      expect(searches(server.requests)).toEqual([
        { subject_id: "run", kind: "procedure", limit: "100" },
        { subject_id: "run", limit: "5" },
      ]);
    });

    it("sends the query text and semantic flag", async () => {
      const server = serve();
      const store = storeOver(server.fetch);
      await store.searchMemories("run", { q: "cache", semantic: true });
      expect(searches(server.requests)).toEqual([
        { subject_id: "run", q: "cache", semantic: "true", limit: "20" },
      ]);
    });

    it("on Statewave v0.7.1, finds our kind among the newest 100 and keeps only that kind, up to the limit", async () => {
      const server = emulated();
      const store = storeOver(server.fetch);
      await store.createEpisode(decision("Keep the cache", "cache"));
      await store.createEpisode(decision("Use Postgres", "database"));
      await store.createEpisode({
        subjectId: "run",
        source: "planner",
        type: "conversation",
        payload: { content: "We talked about lunch." },
      });
      await store.compileMemories("run");
      server.requests.length = 0;
      const found = await store.searchMemories("run", { kind: "architectural_decision", limit: 1 });
      expect(found.map((memory) => memory.kind)).toEqual(["architectural_decision"]);
      expect(searches(server.requests)).toEqual([
        { subject_id: "run", kind: "architectural_decision", limit: "1" },
        { subject_id: "run", limit: "100" },
      ]);
      const all = await store.searchMemories("run", { kind: "architectural_decision" });
      expect(all.map((memory) => memory.content).sort()).toEqual([
        "Keep the cache",
        "Use Postgres",
      ]);
    });
  });

  describe("createEpisode", () => {
    it("on Statewave v0.7.1, types the memories of its own episodes without reading them back", async () => {
      const server = emulated();
      const store = storeOver(server.fetch);
      await store.createEpisode(decision("Keep the cache"));
      server.requests.length = 0;
      const { memories } = await store.compileMemories("run");
      expect(memories.map((memory) => memory.kind)).toEqual(["architectural_decision"]);
      expect(server.requests.map((request) => `${request.method} ${request.path}`)).toEqual([
        "POST /v1/memories/compile",
      ]);
    });
  });

  describe("getContext", () => {
    it("sends the token budget and session when given, and neither when not", async () => {
      const server = serve();
      const store = storeOver(server.fetch);
      await store.getContext("run", "cache", { maxTokens: 300, sessionId: "session-1" });
      await store.getContext("run", "cache");
      expect(
        server.requests.filter((request) => request.path === "/v1/context").map((r) => r.body),
      ).toEqual([
        { subject_id: "run", task: "cache", max_tokens: 300, session_id: "session-1" },
        { subject_id: "run", task: "cache" },
      ]);
    });
  });

  describe("getTimeline", () => {
    it("on Statewave v0.7.1, pages the memories as it pages the episodes", async () => {
      const server = emulated();
      const store = storeOver(server.fetch);
      for (const target of ["cache", "database", "queue"]) {
        await store.createEpisode(decision(`Decide the ${target}`, target));
      }
      await store.compileMemories("run");
      const whole = await store.getTimeline("run");
      expect(whole.memories).toHaveLength(3);
      const page = await store.getTimeline("run", { offset: 1, limit: 1 });
      expect(page.episodes.map((episode) => episode.id)).toEqual([whole.episodes[1]?.id]);
      expect(page.memories.map((memory) => memory.id)).toEqual([whole.memories[1]?.id]);
    });
  });

  describe("compileMemoriesWait", () => {
    it("polls the job every pollIntervalMs until it completes", async () => {
      const delays: number[] = [];
      const store = new StatewaveStore({
        fetch: compileJobServer(["running", "completed"]),
        delay: async (ms) => {
          delays.push(ms);
        },
      });
      cleanups.push(() => store.close());
      const job = await store.compileMemoriesWait("run", { pollIntervalMs: 7 });
      expect(job.status).toBe("completed");
      expect(delays).toEqual([7, 7]);
    });

    it("gives up after timeoutMs", async () => {
      const store = new StatewaveStore({
        fetch: compileJobServer(["running", "running", "completed"]),
        delay: async () => undefined,
        now: () => 0,
      });
      cleanups.push(() => store.close());
      const waiting = store.compileMemoriesWait("run", { timeoutMs: 0 });
      await expect(waiting).rejects.toThrow(CompileTimeoutError);
      await expect(waiting).rejects.toThrow("Compile job job-1 did not finish within 0 ms");
    });
  });

  describe("signal", () => {
    it("aborting the caller's signal cancels the request in flight", async () => {
      const controller = new AbortController();
      const server = serve();
      // The caller gives up while the request is on its way: the server must not be read.
      const store = storeOver(async (input, init) => {
        controller.abort(new Error("caller gave up"));
        if (init?.signal?.aborted) throw init.signal.reason;
        return server.fetch(input, init);
      });
      const { signal } = controller;
      await expect(store.compileMemoriesAsync("run", { signal })).rejects.toThrow("caller gave up");
      expect(server.requests).toEqual([]);
    });
  });

  describe("close", () => {
    const note = {
      subjectId: "run",
      source: "planner",
      type: "note",
      payload: { content: "After close" },
    };

    it("stops the watches of the client it created", async () => {
      const server = serve();
      const store = new StatewaveStore({ fetch: server.fetch, pollIntervalMs: 60_000 });
      const changes: StoreChange[] = [];
      store.client.watch("run", (change) => changes.push(change));
      await store.close();
      await store.client.createEpisode(note);
      expect(changes).toEqual([]);
    });

    it("leaves a client it was given running", async () => {
      const server = serve();
      const client = new StatewaveClient({ fetch: server.fetch, pollIntervalMs: 60_000 });
      cleanups.push(() => client.close());
      const store = new StatewaveStore({ client });
      const changes: StoreChange[] = [];
      client.watch("run", (change) => changes.push(change));
      await store.close();
      const episode = await client.createEpisode(note);
      expect(changes.map((change) => change.type === "episode" && change.episode.id)).toEqual([
        episode.id,
      ]);
    });
  });

  describe("createEpisodesBatch", () => {
    const notes = (count: number, subjectId = "run", type = "note"): CreateEpisodeInput[] =>
      Array.from({ length: count }, (_, index) => ({
        subjectId,
        source: "planner",
        type,
        payload: { content: `Note ${index}` },
      }));

    it("takes up to 100 episodes and lets the server refuse 101 with its 422", async () => {
      const server = serve();
      const store = storeOver(server.fetch);
      expect((await store.createEpisodesBatch(notes(100))).episodesCreated).toBe(100);
      const refused = store.createEpisodesBatch(notes(101));
      await expect(refused).rejects.toBeInstanceOf(StatewaveAPIError);
      await expect(refused).rejects.toMatchObject({ statusCode: 422 });
    });

    it("on Statewave v0.7.1, refuses 101 at once even where the log would write them in pieces", async () => {
      const server = emulated();
      const store = storeOver(server.fetch);
      // Past the first 100, run events go to the log's next segment, 100 at a time.
      await store.createEpisodesBatch(notes(100, "run", "run_event"));
      await store.createEpisodesBatch(notes(100, "run", "run_event"));
      const refused = store.createEpisodesBatch(notes(101, "run", "run_event"));
      await expect(refused).rejects.toMatchObject({ statusCode: 422 });
      expect((await store.getTimeline("run", { limit: 1000 })).episodes).toHaveLength(200);
    });

    it("writes each episode under its own subject", async () => {
      const server = serve();
      const store = storeOver(server.fetch);
      const { episodes } = await store.createEpisodesBatch([
        ...notes(1, "alpha"),
        ...notes(1, "beta"),
      ]);
      expect(episodes.map((episode) => episode.subjectId)).toEqual(["alpha", "beta"]);
      for (const subjectId of ["alpha", "beta"]) {
        const timeline = await store.getTimeline(subjectId);
        expect(timeline.episodes.map((episode) => episode.subjectId)).toEqual([subjectId]);
      }
    });

    it("delivers the batch to a watch opened just before it, before it resolves", async () => {
      const server = serve();
      let written: () => void = () => undefined;
      const landed = new Promise<void>((resolve) => {
        written = resolve;
      });
      // The watches' first reads are held until a write has landed, or the event loop has turned
      // a few times: a write that did not wait for a watch's baseline would be read as history.
      const store = storeOver(async (input, init) => {
        const url = new URL(String(input));
        if (url.pathname === "/v1/timeline" && url.searchParams.get("subject_id") !== "setup") {
          await Promise.race([landed, eventLoopTurns(20)]);
        }
        const response = await server.fetch(input, init);
        if (init?.method === "POST") written();
        return response;
      });
      // Two episodes of another subject tell the store that serve pages: then nothing but the
      // baseline orders a watch's first read before the write.
      await store.createEpisodesBatch(notes(2, "setup"));
      await store.getTimeline("setup");
      const changes: StoreChange[] = [];
      store.watch("alpha", (change) => changes.push(change));
      store.watch("beta", (change) => changes.push(change));
      const { episodes } = await store.createEpisodesBatch([
        ...notes(1, "alpha"),
        ...notes(1, "beta"),
      ]);
      expect(
        changes.map((change) => change.type === "episode" && change.episode.id).sort(),
      ).toEqual(episodes.map((episode) => episode.id).sort());
    });
  });
});

async function eventLoopTurns(count: number): Promise<void> {
  for (let turn = 0; turn < count; turn += 1) {
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
}
