import { describe, expect, it } from "vitest";
import type { ContextStore } from "../../../src/context/context-store.js";
import type { EmbeddedStore } from "../../../src/context/embedded/embedded-store.js";
import { StoreValidationError } from "../../../src/context/errors/store-validation-error.js";
import { embeddedStoresPerTest } from "../../support/embedded-stores.js";

const open = embeddedStoresPerTest(() => {
  let next = 0;
  return {
    now: () => new Date("2030-01-01T00:00:00.000Z"),
    generateId: () => `id-${String(++next).padStart(4, "0")}`,
  };
});

function episode(content: string, type = "implementation_note") {
  return { subjectId: "run", source: "agent-a", type, payload: { content } };
}

/** Writes one memory per content, oldest first, and returns their ids in that order. */
async function memoriesOf(
  store: EmbeddedStore,
  contents: string[],
  type?: string,
): Promise<string[]> {
  await store.createEpisodesBatch(contents.map((content) => episode(content, type)));
  const { memories } = await store.compileMemories("run");
  return memories.map((memory) => memory.id);
}

async function fieldOf(call: Promise<unknown>): Promise<string | undefined> {
  const error = await call.catch((caught: unknown) => caught);
  expect(error).toBeInstanceOf(StoreValidationError);
  return (error as StoreValidationError).field;
}

describe("EmbeddedStore reads", () => {
  describe("input validation names the field", () => {
    const bad = 5 as unknown as string;
    it.each<[string, (store: ContextStore) => Promise<unknown>, string]>([
      ["compileMemoriesAsync", (store) => store.compileMemoriesAsync(""), "subjectId"],
      ["searchMemories", (store) => store.searchMemories(""), "subjectId"],
      ["searchMemories", (store) => store.searchMemories("run", { limit: 101 }), "limit"],
      ["searchMemories", (store) => store.searchMemories("run", { kind: bad }), "kind"],
      ["searchMemories", (store) => store.searchMemories("run", { q: bad }), "q"],
      ["getContext", (store) => store.getContext("", "a task"), "subjectId"],
      ["getTimeline", (store) => store.getTimeline(""), "subjectId"],
      ["listSubjects", (store) => store.listSubjects({ offset: -1 }), "offset"],
      ["deleteSubject", (store) => store.deleteSubject(""), "subjectId"],
      ["watch", async (store) => store.watch("", () => {}), "subjectId"],
    ])("%s rejects a bad %s", async (_method, call, field) => {
      expect(await fieldOf(call(open()))).toBe(field);
    });
  });

  describe("searchMemories", () => {
    it("finds nothing with a limit of 0", async () => {
      const store = open();
      await memoriesOf(store, ["Use a queue"]);
      expect(await store.searchMemories("run", { limit: 0 })).toEqual([]);
    });

    it("takes an empty kind or q as no filter", async () => {
      const store = open();
      const ids = await memoriesOf(store, ["Use a queue", "Retry twice"]);
      for (const options of [{ kind: "" }, { q: "" }]) {
        const found = await store.searchMemories("run", options);
        expect(found.map((memory) => memory.id)).toEqual([...ids].reverse());
      }
    });
  });

  describe("getContext", () => {
    it("answers a task with no search words from the newest memories", async () => {
      const store = open();
      const [id] = await memoriesOf(store, ["Use a queue"]);
      const bundle = await store.getContext("run", "?! --");
      expect(bundle.facts.map((memory) => memory.id)).toEqual([id]);
    });

    it("keeps an old decision among the candidates, unrelated to the task or not", async () => {
      const store = open();
      const [decision] = await memoriesOf(store, ["Use a queue"], "architectural_decision");
      // More than the newest candidates: the decision is not among them.
      const notes = await memoriesOf(
        store,
        Array.from({ length: 45 }, (_, index) => `Step ${index} done`),
      );
      const bundle = await store.getContext("run", "unrelated", { maxTokens: 100_000 });
      const facts = bundle.facts.map((memory) => memory.id);
      expect(facts).toContain(decision);
      expect(facts).toHaveLength(41);
      expect(facts).toEqual(expect.arrayContaining(notes.slice(-40)));
    });

    it("finds the best match among many, however old, and breaks ties by the newest", async () => {
      const store = open();
      const [best] = await memoriesOf(store, ["Cache eviction: evict the cache by LRU eviction"]);
      // Equally relevant to one another, all less than the best, and more than the newest candidates.
      const others = await memoriesOf(
        store,
        Array.from({ length: 60 }, () => "The cache sits in front of the database"),
      );
      const bundle = await store.getContext("run", "cache eviction", { maxTokens: 100_000 });
      const facts = bundle.facts.map((memory) => memory.id);
      expect(facts[0]).toBe(best);
      // The 39 ties that win are the newest, which are candidates anyway: no older one gets in.
      expect(facts.slice(1).sort()).toEqual(others.slice(-40).sort());
    });
  });
});
