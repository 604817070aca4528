import { afterEach, describe, expect, it } from "vitest";
import type { CreateEpisodeInput, StoreChange } from "../../src/context/context-store.js";
import { EmbeddedStore } from "../../src/context/embedded-store.js";
import { StatewaveAPIError } from "../../src/context/errors/statewave-api-error.js";
import { StatewaveClient } from "../../src/context/statewave-client.js";
import { StatewaveStore } from "../../src/context/statewave-store.js";
import { createApp } from "../../src/server/app.js";
import { createStatewaveEmulator } from "../../src/server/compat/statewave-v0-7-1.js";

/**
 * What StatewaveStore's reads and writes send and return, seen from the wire: on `shared-ctx serve`
 * (which pages and indexes shared-ctx's kinds) and on an emulated Statewave v0.7.1 (which does
 * neither). Every request is recorded as `METHOD /path?query`.
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
});
