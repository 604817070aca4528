import { describe, expect, it, vi } from "vitest";
import type { ContextStore, StoreChange } from "../../../src/context/context-store.js";
import { StoreClosedError } from "../../../src/context/errors/store-closed-error.js";
import { StoreValidationError } from "../../../src/context/errors/store-validation-error.js";
import { PostgresStore } from "../../../src/context/postgres/postgres-store.js";
import { postgresSkipReason, usePostgres } from "./use-postgres.js";

const skip = postgresSkipReason("postgres-store-core-reads.e2e.test.ts") !== undefined;

function note(content: string, subjectId = "run") {
  return { subjectId, source: "agent-a", type: "implementation_note", payload: { content } };
}

async function fieldOf(call: Promise<unknown>): Promise<string | undefined> {
  const error = await call.catch((caught: unknown) => caught);
  expect(error).toBeInstanceOf(StoreValidationError);
  return (error as StoreValidationError).field;
}

describe.skipIf(skip)("PostgresStore reads", () => {
  const postgres = usePostgres(skip);
  const open = async () => new PostgresStore({ url: await postgres.database() });

  it("names the bad field of every read, before touching the database", async () => {
    const store = await open();
    const bad = 5 as unknown as string;
    try {
      const calls: Array<[(store: ContextStore) => Promise<unknown>, string]> = [
        [(s) => s.searchMemories(""), "subjectId"],
        [(s) => s.searchMemories("run", { limit: -1 }), "limit"],
        [(s) => s.searchMemories("run", { kind: bad }), "kind"],
        [(s) => s.searchMemories("run", { q: bad }), "q"],
        [(s) => s.getContext("", "a task"), "subjectId"],
        [(s) => s.getContext("run", ""), "task"],
        [(s) => s.getContext("run", "a task", { maxTokens: 0 }), "maxTokens"],
        [(s) => s.getTimeline(""), "subjectId"],
        [(s) => s.getTimeline("run", { limit: -1 }), "limit"],
        [(s) => s.getTimeline("run", { offset: -1 }), "offset"],
        [(s) => s.listSubjects({ limit: 0 }), "limit"],
        [(s) => s.listSubjects({ offset: -1 }), "offset"],
        [(s) => s.deleteSubject(""), "subjectId"],
        [(s) => s.deleteSubject("a\u0000b"), "subjectId"],
        [async (s) => s.watch("", () => {}), "subjectId"],
      ];
      for (const [call, field] of calls) expect(await fieldOf(call(store))).toBe(field);
      const error = await store.getContext("", "a task").catch((caught: unknown) => caught);
      expect((error as Error).message).toBe(
        "Invalid subjectId: expected a string of 1..256 characters",
      );
    } finally {
      await store.close();
    }
  });

  it("searchMemories takes an empty q or kind as no filter, and a q or kind as a filter", async () => {
    const store = await open();
    try {
      await store.createEpisodesBatch([note("Use a queue"), note("Retry twice")]);
      const { memories } = await store.compileMemories("run");
      const newestFirst = memories.map((memory) => memory.id).reverse();
      const ids = async (q: string) =>
        (await store.searchMemories("run", { q })).map((memory) => memory.id);
      expect(await ids("")).toEqual(newestFirst);
      expect(await ids("QUEUE")).toEqual([memories[0]?.id]);
      // An empty kind is no filter either, as on the embedded store; any other string kind filters.
      const ofKind = async (kind: string) =>
        (await store.searchMemories("run", { kind })).map((memory) => memory.id);
      expect(await ofKind("")).toEqual(newestFirst);
      expect(await ofKind("k".repeat(200))).toEqual([]);
    } finally {
      await store.close();
    }
  });

  it("a deleted subject is gone from listSubjects until it is written again, counted afresh", async () => {
    const store = await open();
    try {
      await store.createEpisodesBatch([
        note("Use a queue"),
        note("Retry twice"),
        note("x", "other"),
      ]);
      await store.compileMemories("run");
      expect(await store.deleteSubject("run")).toEqual({
        subjectId: "run",
        episodesDeleted: 2,
        memoriesDeleted: 2,
      });
      expect(await store.listSubjects()).toEqual({
        subjects: [{ subjectId: "other", episodeCount: 1, memoryCount: 0 }],
        total: 1,
      });
      await store.createEpisode(note("Start over"));
      await store.compileMemories("run");
      expect((await store.listSubjects()).subjects).toEqual([
        { subjectId: "other", episodeCount: 1, memoryCount: 0 },
        { subjectId: "run", episodeCount: 1, memoryCount: 1 },
      ]);
    } finally {
      await store.close();
    }
  });

  it("watch delivers only what is written after it starts", async () => {
    const store = await open();
    try {
      await store.createEpisode(note("Before"));
      await store.compileMemories("run");
      const changes: StoreChange[] = [];
      const subscription = store.watch("run", (change) => changes.push(change));
      const after = await store.createEpisode(note("After"));
      const { memories } = await store.compileMemories("run");
      await vi.waitFor(() => expect(changes).toHaveLength(2), { timeout: 10_000 });
      subscription.close();
      expect(changes).toEqual([
        { type: "episode", episode: after },
        { type: "memory", memory: memories[0] },
      ]);
    } finally {
      await store.close();
    }
  });

  it("is closed for good after close(): reads and watch throw StoreClosedError", async () => {
    const store = await open();
    await store.createEpisode(note("Before"));
    await store.close();
    await store.close();
    await expect(store.getTimeline("run")).rejects.toBeInstanceOf(StoreClosedError);
    await expect(store.listSubjects()).rejects.toBeInstanceOf(StoreClosedError);
    expect(() => store.watch("run", () => {})).toThrow(StoreClosedError);
  });
});
