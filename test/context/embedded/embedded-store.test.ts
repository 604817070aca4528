import { join } from "node:path";
import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import type { ContextStore, StoreChange } from "../../../src/context/context-store.js";
import { EmbeddedStore } from "../../../src/context/embedded/embedded-store.js";
import { schemaVersion } from "../../../src/context/embedded/schema.js";
import { CompileJobNotFoundError } from "../../../src/context/errors/compile-job-not-found-error.js";
import { StoreClosedError } from "../../../src/context/errors/store-closed-error.js";
import { StoreSchemaError } from "../../../src/context/errors/store-schema-error.js";
import { StoreValidationError } from "../../../src/context/errors/store-validation-error.js";
import { useTempDir } from "../../support/temp-dir.js";

const opened: EmbeddedStore[] = [];
function open(
  path = ":memory:",
  options: Partial<ConstructorParameters<typeof EmbeddedStore>[0]> = {},
) {
  const store = new EmbeddedStore({ path, ...options });
  opened.push(store);
  return store;
}
afterEach(async () => {
  for (const store of opened.splice(0)) await store.close();
});

function note(subjectId: string, content = "a note") {
  return { subjectId, source: "agent-a", type: "implementation_note", payload: { content } };
}

describe("EmbeddedStore", () => {
  const tempDir = useTempDir("embedded-store-");
  describe("options", () => {
    it("uses the injected clock and id generator", async () => {
      let next = 0;
      const store = open(":memory:", {
        now: () => new Date("2030-01-02T03:04:05.000Z"),
        generateId: () => `id-${++next}`,
      });
      const episode = await store.createEpisode(note("s"));
      expect(episode).toMatchObject({ id: "id-1", createdAt: "2030-01-02T03:04:05.000Z" });
      const { memories } = await store.compileMemories("s");
      expect(memories[0]).toMatchObject({
        id: "id-2",
        validFrom: "2030-01-02T03:04:05.000Z",
        createdAt: "2030-01-02T03:04:05.000Z",
      });
    });

    it("creates parent folders, persists across reopen and records the schema version", async () => {
      const path = join(tempDir(), "a", "b", "store.db");
      const first = open(path);
      const created = await first.createEpisode(note("s"));
      await first.compileMemories("s");
      await first.close();
      const second = open(path);
      const timeline = await second.getTimeline("s");
      expect(timeline.episodes.map((episode) => episode.id)).toEqual([created.id]);
      expect(timeline.memories).toHaveLength(1);
      await second.close();
      const raw = new Database(path, { readonly: true });
      expect(raw.pragma("user_version", { simple: true })).toBe(schemaVersion);
      expect(raw.pragma("journal_mode", { simple: true })).toBe("wal");
      raw.close();
    });

    it("refuses a database written by a newer schema", () => {
      const path = join(tempDir(), "future.db");
      const raw = new Database(path);
      raw.pragma(`user_version = ${schemaVersion + 1}`);
      raw.close();
      expect(() => open(path)).toThrow(StoreSchemaError);
    });

    it("rejects calls after close, and close is idempotent", async () => {
      const store = new EmbeddedStore({ path: ":memory:" });
      await store.close();
      await store.close();
      await expect(store.createEpisode(note("s"))).rejects.toBeInstanceOf(StoreClosedError);
    });

    it("honours an aborted signal before writing", async () => {
      const store = open();
      const controller = new AbortController();
      controller.abort();
      await expect(store.createEpisode(note("s"), { signal: controller.signal })).rejects.toThrow();
      expect((await store.getTimeline("s")).episodes).toEqual([]);
    });
  });

  describe("validation errors", () => {
    it.each([
      ["subjectId", () => note("")],
      ["payload", () => ({ ...note("s"), payload: [] as unknown as Record<string, never> })],
      ["metadata", () => ({ ...note("s"), metadata: null as unknown as Record<string, never> })],
      ["sessionId", () => ({ ...note("s"), sessionId: "x".repeat(257) })],
    ])("names the field %s and what it expects", async (field, input) => {
      const store = open();
      const error = await store.createEpisode(input()).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(StoreValidationError);
      expect(error).toMatchObject({ field, expected: expect.any(String) });
    });

    it("rejects a payload JSON cannot hold, writing nothing of the batch", async () => {
      const store = open();
      const cyclic: Record<string, unknown> = {};
      cyclic.self = cyclic;
      const error = await store
        .createEpisodesBatch([note("s"), { ...note("s"), payload: cyclic as never }])
        .catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(StoreValidationError);
      expect(error).toMatchObject({ field: "episodes[1].payload" });
      expect((await store.getTimeline("s")).episodes).toEqual([]);
    });

    it("returns exactly what a later read gives back", async () => {
      const store = open();
      const payload = { content: "x", dropped: undefined, notANumber: Number.NaN };
      const created = await store.createEpisode({ ...note("s"), payload: payload as never });
      const [stored] = (await store.getTimeline("s")).episodes;
      expect(created).toEqual(stored);
      expect(created.payload).toEqual({ content: "x", notANumber: null });
    });

    it("names the batch item that is wrong", async () => {
      const store = open();
      const error = await store
        .createEpisodesBatch([note("s"), { ...note("s"), type: "" }])
        .catch((caught: unknown) => caught);
      expect(error).toMatchObject({ field: "episodes[1].type" });
    });

    it.each([
      ["task", () => open().getContext("s", "")],
      ["maxTokens", () => open().getContext("s", "t", { maxTokens: 0 })],
      ["limit", () => open().getTimeline("s", { limit: 10_001 })],
      ["offset", () => open().getTimeline("s", { offset: -1 })],
      ["limit", () => open().listSubjects({ limit: 201 })],
    ])("rejects a bad %s", async (field, call) => {
      await expect(call()).rejects.toMatchObject({ name: "StoreValidationError", field });
    });

    it("throws a typed error for an unknown job id", async () => {
      const error = await open()
        .getCompileStatus("nope")
        .catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(CompileJobNotFoundError);
      expect(error).toMatchObject({ jobId: "nope" });
    });
  });

  describe("tenants", () => {
    it("isolates every read and write by tenant, the default tenant included", async () => {
      const store = open();
      const acme = store.forTenant("acme");
      const globex = store.forTenant("globex");
      const views: Array<[string, ContextStore]> = [
        ["default", store],
        ["acme", acme],
        ["globex", globex],
      ];
      for (const [name, view] of views) {
        await view.createEpisode({
          subjectId: "shared-subject",
          source: name,
          type: "architectural_decision",
          payload: { content: `${name} decides`, target: "same-target" },
        });
        await view.compileMemories("shared-subject");
      }
      for (const [name, view] of views) {
        const timeline = await view.getTimeline("shared-subject");
        expect(timeline.episodes.map((episode) => episode.source)).toEqual([name]);
        // Same subject, kind and target in another tenant never supersedes this one.
        expect(timeline.memories.map((memory) => [memory.content, memory.status])).toEqual([
          [`${name} decides`, "active"],
        ]);
        expect((await view.searchMemories("shared-subject")).map((m) => m.content)).toEqual([
          `${name} decides`,
        ]);
        const bundle = await view.getContext("shared-subject", "decides");
        expect(bundle.facts.map((memory) => memory.content)).toEqual([`${name} decides`]);
        expect(await view.listSubjects()).toEqual({
          subjects: [{ subjectId: "shared-subject", episodeCount: 1, memoryCount: 1 }],
          total: 1,
        });
      }
      expect(await acme.deleteSubject("shared-subject")).toMatchObject({ episodesDeleted: 1 });
      expect((await store.getTimeline("shared-subject")).episodes).toHaveLength(1);
      expect((await globex.getTimeline("shared-subject")).episodes).toHaveLength(1);
    });

    it("scopes compile jobs to their tenant", async () => {
      const store = open();
      const job = await store.forTenant("acme").compileMemoriesAsync("s");
      await expect(store.getCompileStatus(job.jobId)).rejects.toBeInstanceOf(
        CompileJobNotFoundError,
      );
      await expect(store.forTenant("globex").getCompileStatus(job.jobId)).rejects.toBeInstanceOf(
        CompileJobNotFoundError,
      );
      expect((await store.forTenant("acme").getCompileStatus(job.jobId)).jobId).toBe(job.jobId);
    });

    it("treats the empty tenant name as a tenant of its own", async () => {
      const store = open();
      await store.forTenant("").createEpisode(note("s"));
      expect((await store.getTimeline("s")).episodes).toEqual([]);
      expect((await store.forTenant(null).getTimeline("s")).episodes).toEqual([]);
      expect((await store.forTenant("").getTimeline("s")).episodes).toHaveLength(1);
    });

    it("delivers watch changes only to the writer's tenant", async () => {
      const store = open();
      const seen: string[] = [];
      const subscription = store.watch("s", (change) => {
        if (change.type === "episode") seen.push(change.episode.source);
      });
      await store.forTenant("acme").createEpisode({ ...note("s"), source: "acme" });
      await store.createEpisode({ ...note("s"), source: "default" });
      expect(seen).toEqual(["default"]);
      subscription.close();
    });

    it("closing a view leaves the store open", async () => {
      const store = open();
      await store.forTenant("acme").close();
      await expect(store.createEpisode(note("s"))).resolves.toBeDefined();
    });
  });

  describe("getContext relevance (FTS5)", () => {
    it("ranks the memory that matches the task first, accents and case folded", async () => {
      const store = open();
      await store.createEpisodesBatch([
        note("s", "Café menu uses the résumé layout"),
        ...Array.from({ length: 30 }, (_, index) => note("s", `unrelated chore ${index}`)),
      ]);
      await store.compileMemories("s");
      const bundle = await store.getContext("s", "CAFE Resume", { maxTokens: 30 });
      expect(bundle.facts[0]?.content).toBe("Café menu uses the résumé layout");
    });

    it("finds an old relevant memory among many newer ones", async () => {
      const store = open();
      await store.createEpisode(note("s", "the zanzibar cache is sharded by tenant"));
      await store.createEpisodesBatch(
        Array.from({ length: 100 }, (_, index) => note("s", `routine step ${index}`)),
      );
      await store.compileMemories("s");
      const bundle = await store.getContext("s", "how is zanzibar sharded?", { maxTokens: 40 });
      expect(bundle.facts[0]?.content).toBe("the zanzibar cache is sharded by tenant");
    });

    it("never ranks another subject's words", async () => {
      const store = open();
      await store.createEpisode(note("other", "zanzibar everywhere zanzibar"));
      await store.compileMemories("other");
      await store.createEpisodesBatch(
        Array.from({ length: 60 }, (_, index) => note("mine", `routine step ${index}`)),
      );
      await store.compileMemories("mine");
      const bundle = await store.getContext("mine", "zanzibar");
      expect(bundle.facts.every((memory) => memory.subjectId === "mine")).toBe(true);
      expect(bundle.assembledContext).not.toContain("zanzibar everywhere");
    });

    it("drops a superseded memory from the index", async () => {
      const store = open();
      await store.createEpisodesBatch([
        {
          ...note("s", "tokens are zebra-signed"),
          type: "architectural_decision",
          payload: { content: "tokens are zebra-signed", target: "t" },
        },
        {
          ...note("s", "tokens are RS256"),
          type: "architectural_decision",
          payload: { content: "tokens are RS256", target: "t" },
        },
      ]);
      await store.compileMemories("s");
      const bundle = await store.getContext("s", "zebra");
      expect(bundle.facts.map((memory) => memory.content)).toEqual(["tokens are RS256"]);
    });
  });

  describe("getContext: the rows it keeps between reads", () => {
    const decision = (content: string) => ({
      ...note("s", content),
      type: "architectural_decision",
      payload: { content, target: "tokens" },
    });

    it("drops a memory superseded after it was read", async () => {
      const store = open();
      await store.createEpisode(decision("tokens are zebra-signed"));
      await store.compileMemories("s");
      const before = await store.getContext("s", "zebra tokens");
      await store.createEpisode(decision("tokens are RS256"));
      await store.compileMemories("s");

      const after = await store.getContext("s", "zebra tokens");

      expect(before.facts.map((memory) => memory.content)).toEqual(["tokens are zebra-signed"]);
      expect(after.facts.map((memory) => memory.content)).toEqual(["tokens are RS256"]);
    });

    it("sees what another handle on the same file superseded or deleted", async () => {
      const path = join(tempDir(), "shared.db");
      const reader = open(path);
      const writer = open(path);
      await writer.createEpisode(decision("tokens are zebra-signed"));
      await writer.compileMemories("s");
      expect((await reader.getContext("s", "zebra")).facts).toHaveLength(1);

      await writer.createEpisode(decision("tokens are RS256"));
      await writer.compileMemories("s");
      const superseded = await reader.getContext("s", "zebra");
      await writer.deleteSubject("s");
      const deleted = await reader.getContext("s", "zebra");

      expect(superseded.facts.map((memory) => memory.content)).toEqual(["tokens are RS256"]);
      expect(deleted.facts).toEqual([]);
    });

    it("hands out fresh objects: changing one read's memories leaves the next read as it was", async () => {
      const store = open();
      await store.createEpisode(note("s", "the cache is sharded"));
      await store.compileMemories("s");
      const first = await store.getContext("s", "cache");
      const [memory] = first.facts;
      if (!memory) throw new Error("no memory read");
      memory.content = "changed";
      memory.metadata.source = "someone else";
      memory.sourceEpisodeIds.push("e-extra");

      const second = await store.getContext("s", "cache");

      expect(second.facts).toEqual([
        expect.objectContaining({
          content: "the cache is sharded",
          sourceEpisodeIds: [expect.any(String)],
        }),
      ]);
      expect(second.facts[0]?.metadata.source).toBe("agent-a");
      expect(second.assembledContext).toContain("- the cache is sharded (agent-a)");
    });
  });

  describe("watch (in process)", () => {
    it("has delivered an episode by the time createEpisode resolves", async () => {
      const store = open();
      const seen: StoreChange[] = [];
      store.watch("s", (change) => seen.push(change));
      const episode = await store.createEpisode(note("s"));
      expect(seen).toEqual([{ type: "episode", episode }]);
    });

    it("delivers a listener's own re-entrant write after the current one, once", async () => {
      const store = open();
      const seen: string[] = [];
      store.watch("s", (change) => {
        if (change.type !== "episode") return;
        seen.push(String(change.episode.payload.content));
        if (change.episode.payload.content === "first") void store.createEpisode(note("s", "echo"));
      });
      await store.createEpisode(note("s", "first"));
      await store.createEpisode(note("s", "second"));
      expect(seen).toEqual(["first", "echo", "second"]);
    });

    it("keeps delivering when a listener throws, and reports the error", async () => {
      const store = open();
      const errors: unknown[] = [];
      const seen: string[] = [];
      store.watch(
        "s",
        (change) => {
          if (change.type === "episode") seen.push(String(change.episode.payload.content));
          throw new Error("listener bug");
        },
        { onError: (error) => errors.push(error) },
      );
      await store.createEpisode(note("s", "one"));
      await store.createEpisode(note("s", "two"));
      expect(seen).toEqual(["one", "two"]);
      expect(errors).toHaveLength(2);
    });

    it("replays a large subject page by page, each change once and in order", async () => {
      const store = open();
      for (let start = 0; start < 1200; start += 100) {
        await store.createEpisodesBatch(
          Array.from({ length: 100 }, (_, index) => note("s", String(start + index))),
        );
      }
      await store.compileMemories("s");
      const episodes: number[] = [];
      let memories = 0;
      store.watch(
        "s",
        (change) => {
          if (change.type === "episode") episodes.push(Number(change.episode.payload.content));
          else memories += 1;
        },
        { replay: true },
      );
      await expect.poll(() => memories, { timeout: 5000, interval: 5 }).toBe(1200);
      expect(episodes).toEqual(Array.from({ length: 1200 }, (_, index) => index));
    });

    it("keeps following a subject that was deleted and written again", async () => {
      const store = open();
      const seen: string[] = [];
      store.watch("s", (change) => {
        if (change.type === "episode") seen.push(String(change.episode.payload.content));
      });
      await store.createEpisode(note("s", "before"));
      await store.deleteSubject("s");
      await store.createEpisode(note("s", "after"));
      expect(seen).toEqual(["before", "after"]);
    });

    it("sees writes from another handle on the same file by polling", async () => {
      const path = join(tempDir(), "shared.db");
      const watcher = open(path, { pollIntervalMs: 5 });
      const writer = open(path);
      const seen: string[] = [];
      watcher.watch("s", (change) => {
        if (change.type === "episode") seen.push(change.episode.id);
        else seen.push(`memory:${change.memory.status}`);
      });
      const episode = await writer.createEpisode(note("s"));
      await writer.compileMemories("s");
      await expect
        .poll(() => seen, { timeout: 2000, interval: 5 })
        .toEqual([episode.id, "memory:active"]);
    });
  });
});
