import { describe, expect, it } from "vitest";
import type { StoreChange } from "../../../src/context/context-store.js";
import type { StatewaveStore } from "../../../src/context/statewave/statewave-store.js";
import { decide, emulatedStatewaveStoresPerTest } from "../support/emulated-statewave-stores.js";

/**
 * `StatewaveStore.watch`'s client-side rule (its ledger) on a Statewave v0.7.1 (emulated), where
 * decisions come back untyped: a watcher is told of every supersede and contradiction the rule
 * makes, of the server's own status changes, and of nothing twice. The server is wrapped so a test
 * can make it answer as a capped v0.7.1 does for a long subject (a memory outside the window of its
 * timeline and search reads) or touch a memory (a new `updated_at`).
 */
const openStore = emulatedStatewaveStoresPerTest();

type WireMemory = { id: string; updated_at: string };

function connect() {
  /** Memory ids the server's reads leave out. */
  const hidden = new Set<string>();
  /** Memory id -> the `updated_at` the server's reads report instead of its own. */
  const touched = new Map<string, string>();
  const reads = /\/v1\/(timeline|memories\/search)$/;
  const wrap =
    (emulator: typeof globalThis.fetch): typeof globalThis.fetch =>
    async (input, init) => {
      const response = await emulator(input, init);
      const url = new URL(input instanceof Request ? input.url : String(input));
      if ((init?.method ?? "GET") !== "GET" || !reads.test(url.pathname)) return response;
      const body = (await response.json()) as { memories: WireMemory[] };
      body.memories = body.memories
        .filter((memory) => !hidden.has(memory.id))
        .map((memory) => ({ ...memory, updated_at: touched.get(memory.id) ?? memory.updated_at }));
      return Response.json(body, { status: response.status });
    };
  const store = openStore({ wrap, pollIntervalMs: 60_000 });
  return { store, hidden, touched };
}

/** Every memory change as `content (target): status`, repeats included. */
function memoryChanges(changes: readonly StoreChange[]): string[] {
  return changes.flatMap((change) =>
    change.type === "memory"
      ? [
          `${change.memory.content} (${String(change.memory.metadata.target)}): ${change.memory.status}`,
        ]
      : [],
  );
}

function watchRun(store: StatewaveStore) {
  const changes: StoreChange[] = [];
  const subscription = store.watch("run", (change) => changes.push(change));
  return { changes, close: () => subscription.close() };
}

describe("StatewaveStore.watch ledger", () => {
  it("supersedes a restated decision the server no longer shows, and tells it once", async () => {
    const { store, hidden } = connect();
    const first = await decide(store, "planner-a", "Keep the cache");
    const watcher = watchRun(store);
    const other = await decide(store, "planner-b", "Drop the cache");
    // Past a capped server's window: neither its timeline (oldest 100) nor search (newest 100).
    hidden.add(first.id);
    const restated = await decide(store, "planner-a", "Keep the cache, really");
    const expected = [
      "Drop the cache (cache): active",
      "Keep the cache (cache): superseded",
      "Keep the cache, really (cache): active",
    ];
    expect(memoryChanges(watcher.changes)).toEqual(expected);
    const memories = watcher.changes.flatMap((change) =>
      change.type === "memory" ? [change.memory] : [],
    );
    expect(memories[1]).toMatchObject({ id: first.id, validTo: restated.validFrom });
    expect(memories[2]?.metadata.contradicts).toEqual([other.id]);

    // Readable again (its status now read as superseded): nothing new for this watcher.
    hidden.delete(first.id);
    await decide(store, "planner-c", "Cache the sessions", "sessions");
    expect(memoryChanges(watcher.changes)).toEqual([
      ...expected,
      "Cache the sessions (sessions): active",
    ]);
    watcher.close();
  });

  it("passes on the server's own supersede of a decision the rule leaves active", async () => {
    const { store } = connect();
    const first = await decide(store, "planner-a", "Keep it warm for the team", "cache");
    const watcher = watchRun(store);
    // Statewave supersedes by word overlap, whatever the target: shared-ctx's rule would not.
    await decide(store, "planner-b", "Keep it warm for the team", "database");
    expect(memoryChanges(watcher.changes)).toEqual([
      "Keep it warm for the team (cache): superseded",
      "Keep it warm for the team (database): active",
    ]);
    const superseded = watcher.changes.find((change) => change.type === "memory");
    expect(superseded?.type === "memory" && superseded.memory.id).toBe(first.id);
    watcher.close();
  });

  it("passes on every change of a memory the server typed itself, but not a touched decision", async () => {
    const { store, touched } = connect();
    const decision = await decide(store, "planner-a", "Keep the cache");
    const watcher = watchRun(store);
    await store.createEpisode({
      subjectId: "run",
      source: "user",
      type: "message",
      payload: { content: "My name is Ada. I live in Paris." },
    });
    const { memories } = await store.compileMemories("run");
    const fact = memories.find((memory) => memory.content === "I live in Paris");
    if (fact === undefined) throw new Error("no profile fact");
    const before = memoryChanges(watcher.changes);
    expect(before).toContain("I live in Paris (undefined): active");

    touched.set(fact.id, "2030-01-01T00:00:00.000000");
    touched.set(decision.id, "2030-01-01T00:00:00.000000");
    await decide(store, "planner-c", "Cache the sessions", "sessions");
    expect(memoryChanges(watcher.changes).slice(before.length)).toEqual([
      "I live in Paris (undefined): active",
      "Cache the sessions (sessions): active",
    ]);
    watcher.close();
  });
});
