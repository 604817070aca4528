import { afterEach, describe, expect, it } from "vitest";
import { InvalidCursorError } from "../../../src/context/errors/invalid-cursor-error.js";
import { listAllMemories } from "../../../src/context/memory-query.js";
import { StatewaveStore } from "../../../src/context/statewave/statewave-store.js";
import { createStatewaveEmulator } from "../../../src/server/compat/statewave-v0-7-1.js";

/**
 * The exact reads against a real Statewave v0.7.1 (its emulation): it has no such routes (404
 * `http_error`), so `StatewaveStore` answers from what the server lets it read, as docs/store.md
 * "Exact reads over a real Statewave" says. Exact while the subject fits v0.7.1's windows.
 */
describe("StatewaveStore's exact reads on a Statewave v0.7.1 server", () => {
  const stores: StatewaveStore[] = [];
  afterEach(async () => {
    await Promise.all(stores.splice(0).map((store) => store.close()));
  });

  async function setUp() {
    const emulator = createStatewaveEmulator();
    const paths: string[] = [];
    const store = new StatewaveStore({
      fetch: (input, init) => {
        paths.push(new URL(String(input instanceof Request ? input.url : input)).pathname);
        return emulator.clientFetch(input, init);
      },
      pollIntervalMs: 5,
    });
    stores.push(store);
    const decide = (target: string, content: string) =>
      store.createEpisode({
        subjectId: "run",
        source: "architect",
        type: "architectural_decision",
        payload: { content, target },
      });
    const first = await decide("modules/billing", "Use HS256");
    await decide("modules/auth", "Keep sessions");
    await store.compileMemories("run");
    await decide("modules/billing", "Use RS256");
    await store.compileMemories("run");
    return { store, paths, firstEpisodeId: first.id };
  }

  it("falls back once, then filters what it can read by kind, target, prefix and status", async () => {
    const { store, paths } = await setUp();
    const page = await store.listMemories("run", {
      kind: "architectural_decision",
      targets: ["modules/billing"],
    });
    expect(page.memories.map((memory) => memory.content)).toEqual(["Use RS256"]);
    expect(paths.filter((path) => path === "/v1/memories")).toHaveLength(1);
    const any = await store.listMemories("run", { targets: ["modules/billing"], status: "any" });
    expect(any.memories.map((memory) => [memory.content, memory.status])).toEqual([
      ["Use RS256", "active"],
      ["Use HS256", "superseded"],
    ]);
    // The route is not asked again once the server said it has none.
    expect(paths.filter((path) => path === "/v1/memories")).toHaveLength(1);
    const all = await listAllMemories(store, "run", { targetPrefix: "modules/", limit: 1 });
    expect(all.map((memory) => memory.content)).toEqual(["Use RS256", "Keep sessions"]);
  });

  it("reads by id from what it can see, and gives changes by its own offsets", async () => {
    const { store, firstEpisodeId } = await setUp();
    expect(await store.getEpisode("run", firstEpisodeId)).toMatchObject({ id: firstEpisodeId });
    expect(await store.getEpisode("run", "nope")).toBeNull();
    const [memory] = (await store.listMemories("run", { status: "superseded" })).memories;
    expect(await store.getMemory("run", memory?.id ?? "")).toMatchObject({ content: "Use HS256" });
    expect(await store.getMemory("run", "nope")).toBeNull();
    const first = await store.changesSince("run", null, { limit: 2 });
    expect(first.hasMore).toBe(true);
    const rest = await store.changesSince("run", first.cursor, { limit: 100 });
    expect(rest.hasMore).toBe(false);
    expect([...first.changes, ...rest.changes].filter((c) => c.type === "episode")).toHaveLength(3);
    await expect(store.changesSince("run", "c1.0.0")).rejects.toBeInstanceOf(InvalidCursorError);
  });

  it("pages the timeline by its own cursor and refuses serve's", async () => {
    const { store } = await setUp();
    const first = await store.getTimeline("run", { limit: 2 });
    expect(first.episodes).toHaveLength(2);
    expect(first.nextCursor).toBe("o1.2");
    const rest = await store.getTimeline("run", { limit: 2, cursor: first.nextCursor });
    expect(rest.episodes).toHaveLength(1);
    expect(rest.nextCursor).toBeNull();
    await expect(store.getTimeline("run", { cursor: "t1.4.4" })).rejects.toBeInstanceOf(
      InvalidCursorError,
    );
  });
});
