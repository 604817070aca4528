import { afterEach, describe, expect, it } from "vitest";
import type { StoreChange } from "../../../src/context/context-store.js";
import { StatewaveClient } from "../../../src/context/statewave/statewave-client.js";
import { segmentSubject } from "../../../src/context/statewave/statewave-episode-log.js";
import { StatewaveStore } from "../../../src/context/statewave/statewave-store.js";
import { createStatewaveEmulator } from "../../../src/server/compat/statewave-v0-7-1.js";

/**
 * StatewaveStore's subjects over their life on a real Statewave v0.7.1 (emulated: the timeline
 * capped at the oldest 100, the rest kept in the store's episode log): whole timelines, listing,
 * deleting, closing.
 */
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

/** A test's hand in one request: it may act before or after `answer()` asks the server. */
type Intercept = (request: Request, answer: () => Promise<Response>) => Promise<Response>;

/** An emulated v0.7.1 with a clock in whole seconds, the requests it got (`METHOD path`). */
function setUp() {
  let clock = Date.UTC(2026, 0, 1);
  const emulator = createStatewaveEmulator({ now: () => (clock += 1000) });
  const requests: string[] = [];
  let intercept: Intercept | undefined;
  const fetch: typeof globalThis.fetch = async (input, init) => {
    const request = new Request(input, init);
    const url = new URL(request.url);
    requests.push(`${request.method} ${decodeURIComponent(url.pathname)}`);
    const answer = () => emulator.fetch(request);
    return intercept ? intercept(request, answer) : answer();
  };
  const connect = () => {
    const store = new StatewaveStore({ fetch, pollIntervalMs: 5 });
    closers.push(() => store.close());
    return store;
  };
  /** Another process, straight to the server. */
  const other = new StatewaveClient({ fetch: emulator.clientFetch });
  return {
    connect,
    other,
    fetch,
    requests,
    intercept: (next: Intercept | undefined) => {
      intercept = next;
    },
  };
}

const note = (content: string, subjectId = "run") => ({
  subjectId,
  source: "coder",
  type: "message",
  payload: { content },
});

const notes = (count: number, subjectId = "run") =>
  Array.from({ length: count }, (_, index) => note(`note ${index}`, subjectId));

const decision = (content: string, target: string, subjectId = "run") => ({
  subjectId,
  source: "planner",
  type: "architectural_decision",
  payload: { content, target },
});

const timelineReads = (requests: readonly string[]) =>
  requests.filter((request) => request === "GET /v1/timeline").length;

describe("StatewaveStore on Statewave v0.7.1", () => {
  describe("getTimeline", () => {
    it("lists memories past the server's 100 oldest first", async () => {
      const { connect } = setUp();
      const store = connect();
      await store.createEpisodesBatch(notes(100));
      await store.compileMemories("run");
      await store.createEpisode(decision("Keep the cache", "cache"));
      await store.compileMemories("run");
      await store.createEpisode(decision("Drop the queue", "queue"));
      await store.compileMemories("run");
      const timeline = await store.getTimeline("run", { offset: 100 });
      expect(timeline.memories.map((memory) => memory.content)).toEqual([
        "Keep the cache",
        "Drop the queue",
      ]);
    });

    it("reads the log and the subject's memories with one timeline request each", async () => {
      const { connect, requests } = setUp();
      const store = connect();
      await store.createEpisodesBatch(notes(2));
      await store.getTimeline("run");
      requests.length = 0;
      const timeline = await store.getTimeline("run");
      expect(timeline.episodes).toHaveLength(2);
      expect(timelineReads(requests)).toBe(2);
    });

    it("shows a memory as the subject's timeline has it when search answered before a change", async () => {
      const { connect, other, intercept } = setUp();
      const store = connect();
      await store.createEpisode(note("Keep the cache warm"));
      await store.compileMemories("run");
      await store.getTimeline("run");
      let searched: () => void = () => undefined;
      const searchAnswered = new Promise<void>((resolve) => {
        searched = resolve;
      });
      let searchSent = false;
      intercept(async (request, answer) => {
        const path = new URL(request.url).pathname;
        if (path === "/v1/memories/search") {
          searchSent = true;
          const response = await answer();
          searched();
          return response;
        }
        if (path !== "/v1/timeline") return answer();
        // The memories' timeline read is sent in the same turn as the search (Promise.all), the log's alone.
        await new Promise((resolve) => setImmediate(resolve));
        if (!searchSent) return answer();
        await searchAnswered;
        // Meanwhile Statewave's own word-overlap rule supersedes the note.
        await other.createEpisode(note("Keep the cache warm now"));
        await other.compileMemories("run");
        return answer();
      });
      const timeline = await store.getTimeline("run");
      expect(timeline.memories.map((memory) => [memory.content, memory.status])).toEqual([
        ["Keep the cache warm", "superseded"],
        ["Keep the cache warm now", "active"],
      ]);
    });

    it("cancels the reads of the subject's memories with the caller's signal", async () => {
      const { connect, intercept } = setUp();
      const store = connect();
      await store.createEpisodesBatch(notes(2));
      const controller = new AbortController();
      const reason = new Error("the caller gave up");
      intercept(async (request, answer) => {
        if (new URL(request.url).pathname !== "/v1/memories/search") return answer();
        controller.abort(reason);
        if (request.signal.aborted) throw request.signal.reason;
        return answer();
      });
      await expect(store.getTimeline("run", { signal: controller.signal })).rejects.toBe(reason);
    });
  });

  it("listSubjects pages by limit and offset", async () => {
    const { connect } = setUp();
    const store = connect();
    await store.createEpisodesBatch([...notes(1, "a"), ...notes(1, "b"), ...notes(1, "c")]);
    const page = await store.listSubjects({ limit: 1, offset: 1 });
    expect(page.subjects.map((subject) => subject.subjectId)).toEqual(["b"]);
  });

  describe("deleteSubject", () => {
    it("deletes the log's segments past the server's 100 too", async () => {
      const { connect, other } = setUp();
      const store = connect();
      for (const count of [100, 100, 1]) {
        await store.createEpisodesBatch(notes(count));
        await store.getTimeline("run");
      }
      const segments = [1, 2].map((index) => segmentSubject("run", index));
      const sizes = async () =>
        Promise.all(
          segments.map(async (subject) => (await other.getTimeline(subject)).episodes.length),
        );
      expect(await sizes()).toEqual([100, 1]);
      await store.deleteSubject("run");
      expect(await sizes()).toEqual([0, 0]);
    });

    it("stops at the first segment that held nothing", async () => {
      const { connect, requests } = setUp();
      const store = connect();
      await store.createEpisodesBatch(notes(100));
      await store.getTimeline("run");
      requests.length = 0;
      await store.deleteSubject("run");
      expect(requests.filter((request) => request.startsWith("DELETE"))).toEqual([
        "DELETE /v1/subjects/run",
        `DELETE /v1/subjects/${segmentSubject("run", 1)}`,
      ]);
    });

    it("still types another subject's memories from the episodes it knows", async () => {
      const { connect, requests } = setUp();
      const store = connect();
      for (const subjectId of ["a", "b"]) {
        await store.createEpisode(decision("Keep the cache", "cache", subjectId));
        await store.compileMemories(subjectId);
      }
      await store.deleteSubject("a");
      requests.length = 0;
      const found = await store.searchMemories("b", { kind: "architectural_decision" });
      expect(found.map((memory) => memory.metadata.target)).toEqual(["cache"]);
      expect(timelineReads(requests)).toBe(0);
    });
  });

  describe("close", () => {
    const write = (client: StatewaveClient) => client.createEpisode(note("written after close"));
    const episodes = (changes: readonly StoreChange[]) =>
      changes.filter((change) => change.type === "episode");

    it("leaves a client it was given open", async () => {
      const { fetch } = setUp();
      const client = new StatewaveClient({ fetch, pollIntervalMs: 5 });
      closers.push(() => client.close());
      const changes: StoreChange[] = [];
      client.watch("run", (change) => changes.push(change));
      await new StatewaveStore({ client }).close();
      await write(client);
      expect(episodes(changes)).toHaveLength(1);
    });

    it("closes the client it made: its watches stop", async () => {
      const { connect } = setUp();
      const store = connect();
      const changes: StoreChange[] = [];
      store.client.watch("run", (change) => changes.push(change));
      await store.close();
      await write(store.client);
      expect(episodes(changes)).toHaveLength(0);
    });
  });
});
