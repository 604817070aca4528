import { afterEach, describe, expect, it } from "vitest";
import { EmbeddedStore } from "../../../src/context/embedded/embedded-store.js";
import { StatewaveClient } from "../../../src/context/statewave/statewave-client.js";
import { StatewaveStore } from "../../../src/context/statewave/statewave-store.js";
import { createApp } from "../../../src/server/app.js";
import { createStatewaveEmulator } from "../../../src/server/compat/statewave-v0-7-1.js";

/**
 * How StatewaveStore types memories the server left untyped (`episode_summary`, `metadata: {}`)
 * from their source episodes: which episodes it reads back from the timeline, and when not.
 */
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

/** `fetch` over a handler, counting the `GET /v1/timeline` requests that reach it. */
function counting(handler: (request: Request) => Promise<Response>) {
  let timelineReads = 0;
  const fetch: typeof globalThis.fetch = async (input, init) => {
    const request = new Request(input, init);
    if (request.method === "GET" && new URL(request.url).pathname === "/v1/timeline") {
      timelineReads += 1;
    }
    return handler(request);
  };
  return { fetch, timelineReads: () => timelineReads };
}

/** A real Statewave v0.7.1 (emulated): timeline capped at the oldest 100, memories untyped. */
function capped() {
  const emulator = createStatewaveEmulator();
  return counting((request) => emulator.fetch(request));
}

/** `shared-ctx serve`: pages the timeline (100 by default), keeps our kind in `metadata.kind`. */
function serve() {
  const embedded = new EmbeddedStore({ path: ":memory:" });
  closers.push(async () => embedded.close());
  const app = createApp({ store: embedded });
  return counting(async (request) => app.fetch(request));
}

/** Every memory in a JSON answer with its metadata dropped, as a Statewave that pages (v1.x) sends it. */
function withoutMemoryMetadata(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutMemoryMetadata);
  if (value === null || typeof value !== "object") return value;
  const entries = Object.entries(value).map(([key, item]) => [key, withoutMemoryMetadata(item)]);
  const object = Object.fromEntries(entries);
  return "source_episode_ids" in object ? { ...object, metadata: {} } : object;
}

/**
 * A server that pages its timeline like `serve` (100 by default) but returns memories untyped like
 * Statewave, and takes any `limit` (`serve` refuses one over 10 000).
 */
function pagedUntyped() {
  const embedded = new EmbeddedStore({ path: ":memory:" });
  closers.push(async () => embedded.close());
  const app = createApp({ store: embedded });
  return counting(async (request) => {
    const url = new URL(request.url);
    const limit = url.searchParams.get("limit");
    if (limit !== null) url.searchParams.set("limit", String(Math.min(Number(limit), 10_000)));
    const response = await app.fetch(new Request(url, request));
    if (!response.headers.get("content-type")?.includes("json")) return response;
    const body = withoutMemoryMetadata(await response.json());
    return Response.json(body, { status: response.status, headers: response.headers });
  });
}

function connect(fetch: typeof globalThis.fetch) {
  const store = new StatewaveStore({ fetch, pollIntervalMs: 5 });
  closers.push(() => store.close());
  return store;
}

function otherProcess(fetch: typeof globalThis.fetch) {
  return new StatewaveClient({ fetch });
}

const decision = (content: string, source = "planner") => ({
  subjectId: "run",
  source,
  type: "architectural_decision",
  payload: { content, target: "cache" },
});

const notes = (count: number) =>
  Array.from({ length: count }, (_, index) => ({
    subjectId: "run",
    source: "coder",
    type: "message",
    payload: { content: `note ${index}` },
  }));

describe("StatewaveStore typing memories", () => {
  it("types memories of episodes it wrote without reading the timeline", async () => {
    const server = capped();
    const store = connect(server.fetch);
    await store.createEpisode(decision("Keep the cache"));
    await store.compileMemories("run");
    const before = server.timelineReads();
    const found = await store.searchMemories("run", { kind: "architectural_decision" });
    expect(found.map((memory) => [memory.content, memory.metadata.source])).toEqual([
      ["Keep the cache", "planner"],
    ]);
    expect(server.timelineReads()).toBe(before);
  });

  it("reads no timeline for Statewave's own facts, which are not typed from episodes", async () => {
    const server = capped();
    await otherProcess(server.fetch).createEpisode({
      subjectId: "run",
      source: "user",
      type: "message",
      payload: { content: "My name is Alice" },
    });
    await otherProcess(server.fetch).compileMemories("run");
    const reader = connect(server.fetch);
    const facts = await reader.searchMemories("run", { kind: "profile_fact" });
    expect(facts.map((memory) => [memory.kind, memory.content])).toEqual([
      ["profile_fact", "My name is Alice"],
    ]);
    expect(server.timelineReads()).toBe(0);
  });

  it("reads no timeline for memories `serve` typed itself", async () => {
    const server = serve();
    const writer = connect(server.fetch);
    await writer.createEpisode(decision("Keep the cache"));
    await writer.compileMemories("run");
    const before = server.timelineReads();
    const reader = connect(server.fetch);
    const found = await reader.searchMemories("run", { kind: "architectural_decision" });
    expect(found.map((memory) => [memory.content, memory.metadata.source])).toEqual([
      ["Keep the cache", "planner"],
    ]);
    expect(server.timelineReads()).toBe(before);
  });

  it("on a server that pages, reads another writer's episode past the first page", async () => {
    const server = pagedUntyped();
    const writer = otherProcess(server.fetch);
    await writer.createEpisodesBatch(notes(100));
    await writer.createEpisode(decision("Keep the cache"));
    await writer.compileMemories("run");
    const reader = connect(server.fetch);
    const found = await reader.searchMemories("run", { kind: "architectural_decision" });
    expect(found.map((memory) => [memory.content, memory.metadata.source])).toEqual([
      ["Keep the cache", "planner"],
    ]);
  });

  it("looks for an episode no timeline returns once, then leaves its memory as the server sent it", async () => {
    const server = capped();
    const writer = otherProcess(server.fetch);
    // Written past a real v0.7.1's 100 without shared-ctx's log: no timeline ever returns it.
    await writer.createEpisodesBatch(notes(100));
    await writer.createEpisode(decision("Keep the cache"));
    await writer.compileMemories("run");
    const reader = connect(server.fetch);
    const search = async () =>
      (await reader.searchMemories("run", { q: "cache" })).map((memory) => memory.kind);
    expect(await search()).toEqual(["episode_summary"]);
    const before = server.timelineReads();
    expect(await search()).toEqual(["episode_summary"]);
    expect(server.timelineReads()).toBe(before);
  });

  it("keeps the order episodes were written in, whatever order a context lists them in", async () => {
    const server = capped();
    const store = connect(server.fetch);
    await store.createEpisode(decision("Keep the cache"));
    await store.createEpisode(decision("Keep the cache, sized 2 GB"));
    const bundle = await store.getContext("run", "cache sized 2 GB");
    // The premise: this context lists the newer episode first.
    expect(bundle.episodes.map((episode) => episode.payload.content)).toEqual([
      "Keep the cache, sized 2 GB",
      "Keep the cache",
    ]);
    const { memories } = await store.compileMemories("run");
    expect(memories.map((memory) => [memory.content, memory.status])).toEqual([
      ["Keep the cache", "superseded"],
      ["Keep the cache, sized 2 GB", "active"],
    ]);
  });
});
