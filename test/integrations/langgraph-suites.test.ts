/**
 * LangGraph.js's own store tests (libs/checkpoint/src/tests: `store`, `namespace`, `vector`,
 * `vector-replacement`, `vector-delete`, `vector-pagination`), re-written here with their
 * assertions, run against LangGraph's `InMemoryStore` and against `SyncedStore`: a drop-in passes
 * the tests of the store it replaces. Where `SyncedStore` differs on purpose (merge semantics),
 * the difference has a test of its own in langgraph-store.test.ts and a line in
 * docs/integrations.md; none of the tests below needed one.
 */
import { Embeddings } from "@langchain/core/embeddings";
import { type BaseStore, InMemoryStore } from "@langchain/langgraph";
import { InvalidNamespaceError } from "@langchain/langgraph-checkpoint";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { EmbeddedStore } from "../../src/context/embedded/embedded-store.js";
import { type ItemIndexConfig, SyncedStore } from "../../src/langgraph.js";

/** LangGraph's test embeddings: a character histogram, normalised. */
class CharacterEmbeddings extends Embeddings {
  readonly dims: number;
  constructor(dims = 500) {
    super({});
    this.dims = dims;
  }
  async embedQuery(query: string): Promise<number[]> {
    return this.#embed(query);
  }
  async embedDocuments(texts: string[]): Promise<number[][]> {
    return texts.map((text) => this.#embed(text));
  }
  #embed(text: string): number[] {
    const vector = new Array<number>(this.dims).fill(0);
    for (let position = 0; position < text.length && position < this.dims; position += 1) {
      const slot = text.charCodeAt(position) % this.dims;
      vector[slot] = (vector[slot] ?? 0) + 1;
    }
    const magnitude = Math.sqrt(vector.reduce((sum, value) => sum + value * value, 0));
    return vector.map((value) => value / magnitude);
  }
}

/** "apple" is [1, 0], anything else [0, 1]: scores are exactly 1 or 0. */
class AppleEmbeddings extends Embeddings {
  constructor() {
    super({});
  }
  async embedQuery(text: string): Promise<number[]> {
    return text === "apple" ? [1, 0] : [0, 1];
  }
  async embedDocuments(texts: string[]): Promise<number[][]> {
    return Promise.all(texts.map((text) => this.embedQuery(text)));
  }
}

/** Every query is [1, 0]; a document "match" is [1, 0], anything else [0, 1]. */
class MatchEmbeddings extends Embeddings {
  constructor() {
    super({});
  }
  async embedQuery(): Promise<number[]> {
    return [1, 0];
  }
  async embedDocuments(texts: string[]): Promise<number[][]> {
    return texts.map((text) => (text === "match" ? [1, 0] : [0, 1]));
  }
}

type IndexOptions = { index?: ItemIndexConfig };
type Open = (options?: IndexOptions) => Promise<BaseStore & { indexConfig?: unknown }>;

const toClose: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  for (const closable of toClose.splice(0).reverse()) await closable.close();
});

const stores: Array<[string, Open]> = [
  ["InMemoryStore", async (options = {}) => new InMemoryStore(options)],
  [
    "SyncedStore",
    async (options = {}) => {
      const context = new EmbeddedStore({ path: ":memory:" });
      toClose.push(context);
      const synced = await SyncedStore.open({ store: context, subjectId: "suite", ...options });
      toClose.push(synced);
      return synced;
    },
  ],
];

/**
 * Tests written against LangGraph's latest `InMemoryStore` (vectors replaced by each put) that the
 * installed `@langchain/langgraph-checkpoint` 1.2.2 predates: they run as expected failures on it.
 */
function newerThanInstalled(name: string) {
  return name === "InMemoryStore" ? it.fails : it;
}

/** Both suites' four namespaces a put refuses: empty, a dotted label, an empty label, a "langgraph" root. */
async function expectInvalidNamespacesRefused(store: BaseStore, doc: Record<string, unknown>) {
  await expect(store.put([], "foo", doc)).rejects.toThrow(InvalidNamespaceError);
  await expect(store.put(["the", "thing.about"], "foo", doc)).rejects.toThrow(
    InvalidNamespaceError,
  );
  await expect(store.put(["some", "fun", ""], "foo", doc)).rejects.toThrow(InvalidNamespaceError);
  await expect(store.put(["langgraph", "foo"], "bar", doc)).rejects.toThrow(InvalidNamespaceError);
}

/** What a batch put may write, get, search and delete, as both suites check it after the refusals. */
async function expectBatchRoundTrip(
  store: BaseStore,
  namespace: string[],
  key: string,
  doc: Record<string, unknown>,
) {
  await store.batch([{ namespace, key, value: doc }]);
  expect((await store.get(namespace, key))?.value).toEqual(doc);
  expect((await store.search(namespace))[0]?.value).toEqual(doc);
  await store.delete(namespace, key);
  expect(await store.get(namespace, key)).toBeNull();
}

describe.each(stores)("LangGraph's store suite on %s", (_name, open) => {
  let store: BaseStore;
  beforeEach(async () => {
    store = await open();
  });

  it("should implement get method", async () => {
    await store.put(["test"], "123", { value: 1 });
    expect(await store.get(["test"], "123")).toEqual({
      value: { value: 1 },
      key: "123",
      namespace: ["test"],
      createdAt: expect.any(Date),
      updatedAt: expect.any(Date),
    });
  });

  it("should implement search method", async () => {
    await store.put(["test"], "123", { value: 1 });
    await store.put(["test"], "456", { value: 2 });
    const result = await store.search(["test"]);
    expect(result).toHaveLength(2);
    expect(result[0]).toMatchObject({ value: { value: 1 }, key: "123", namespace: ["test"] });
    expect(result[1]).toMatchObject({ value: { value: 2 }, key: "456", namespace: ["test"] });
  });

  it("should implement put method", async () => {
    await store.put(["test"], "123", { value: 1 });
    expect(await store.get(["test"], "123")).toMatchObject({
      value: { value: 1 },
      key: "123",
      namespace: ["test"],
    });
  });

  it("should implement delete method", async () => {
    await store.put(["test"], "123", { value: 1 });
    await store.delete(["test"], "123");
    expect(await store.get(["test"], "123")).toBeNull();
  });

  const three = async () => {
    await store.put(["a", "b", "c"], "1", { value: 1 });
    await store.put(["a", "b", "d"], "2", { value: 2 });
    await store.put(["x", "y", "z"], "3", { value: 3 });
  };

  it("should implement listNamespaces method", async () => {
    await three();
    expect(await store.listNamespaces({})).toEqual([
      ["a", "b", "c"],
      ["a", "b", "d"],
      ["x", "y", "z"],
    ]);
  });

  it("should filter namespaces by prefix", async () => {
    await three();
    expect(await store.listNamespaces({ prefix: ["a"] })).toEqual([
      ["a", "b", "c"],
      ["a", "b", "d"],
    ]);
  });

  it("should apply maxDepth to listNamespaces results", async () => {
    await three();
    expect(await store.listNamespaces({ maxDepth: 2 })).toEqual([
      ["a", "b"],
      ["x", "y"],
    ]);
  });

  it("Should block invalid namespaces in put", async () => {
    const doc = { foo: "bar" };
    await expectInvalidNamespacesRefused(store, doc);

    await store.put(["foo", "langgraph", "foo"], "bar", doc);
    expect((await store.get(["foo", "langgraph", "foo"], "bar"))?.value).toEqual(doc);
    expect((await store.search(["foo", "langgraph", "foo"]))[0]?.value).toEqual(doc);
    await store.delete(["foo", "langgraph", "foo"], "bar");
    expect(await store.get(["foo", "langgraph", "foo"], "bar")).toBeNull();

    await expectBatchRoundTrip(store, ["langgraph", "foo"], "bar", doc);
  });
});

describe.each(stores)("LangGraph's namespace suite on %s", (_name, open) => {
  let store: BaseStore;
  beforeEach(async () => {
    store = await open();
  });
  const putAll = async (namespaces: string[][]) => {
    for (const [position, namespace] of namespaces.entries()) {
      await store.put(namespace, `id_${position}`, {
        data: `value_${position.toString().padStart(2, "0")}`,
      });
    }
  };

  it("should handle basic namespace operations", async () => {
    await putAll([
      ["a", "b", "c"],
      ["a", "b", "d", "e"],
      ["a", "b", "d", "i"],
      ["a", "b", "f"],
      ["a", "c", "f"],
      ["b", "a", "f"],
      ["users", "123"],
      ["users", "456", "settings"],
      ["admin", "users", "789"],
    ]);
    expect((await store.listNamespaces({ prefix: ["a", "b"] })).sort()).toEqual(
      [
        ["a", "b", "c"],
        ["a", "b", "d", "e"],
        ["a", "b", "d", "i"],
        ["a", "b", "f"],
      ].sort(),
    );
    expect((await store.listNamespaces({ suffix: ["f"] })).sort()).toEqual(
      [
        ["a", "b", "f"],
        ["a", "c", "f"],
        ["b", "a", "f"],
      ].sort(),
    );
    expect((await store.listNamespaces({ prefix: ["a"], suffix: ["f"] })).sort()).toEqual(
      [
        ["a", "b", "f"],
        ["a", "c", "f"],
      ].sort(),
    );
    expect((await store.listNamespaces({ prefix: ["a", "b"], maxDepth: 3 })).sort()).toEqual(
      [
        ["a", "b", "c"],
        ["a", "b", "d"],
        ["a", "b", "f"],
      ].sort(),
    );
    expect(await store.listNamespaces({ prefix: ["a", "b"], limit: 2 })).toEqual([
      ["a", "b", "c"],
      ["a", "b", "d", "e"],
    ]);
    expect(await store.listNamespaces({ prefix: ["a", "b"], offset: 2 })).toEqual([
      ["a", "b", "d", "i"],
      ["a", "b", "f"],
    ]);
  });

  it("should handle wildcards in namespace operations", async () => {
    await putAll([
      ["users", "123"],
      ["users", "456"],
      ["users", "789", "settings"],
      ["admin", "users", "789"],
      ["guests", "123"],
      ["guests", "456", "preferences"],
    ]);
    expect((await store.listNamespaces({ prefix: ["users", "*"] })).sort()).toEqual(
      [
        ["users", "123"],
        ["users", "456"],
        ["users", "789", "settings"],
      ].sort(),
    );
    expect(await store.listNamespaces({ suffix: ["*", "preferences"] })).toEqual([
      ["guests", "456", "preferences"],
    ]);
    expect(
      await store.listNamespaces({ prefix: ["*", "users"], suffix: ["*", "settings"] }),
    ).toEqual([]);
    await store.put(["admin", "users", "settings", "789"], "foo", { data: "some_val" });
    expect(
      (await store.listNamespaces({ prefix: ["*", "users"], suffix: ["settings", "*"] })).sort(),
    ).toEqual([["admin", "users", "settings", "789"]]);
  });

  it("should handle pagination in namespace operations", async () => {
    const padded = (position: number) => position.toString().padStart(2, "0");
    for (let position = 0; position < 20; position += 1) {
      await store.put(["namespace", `sub_${padded(position)}`], `id_${padded(position)}`, {
        data: `value_${padded(position)}`,
      });
    }
    for (const offset of [0, 5, 15]) {
      expect(await store.listNamespaces({ prefix: ["namespace"], limit: 5, offset })).toEqual(
        Array.from({ length: 5 }, (_, position) => [
          "namespace",
          `sub_${padded(position + offset)}`,
        ]),
      );
    }
  });

  it("should handle maxDepth in namespace operations", async () => {
    await putAll([
      ["a", "b", "c", "d"],
      ["a", "b", "c", "e"],
      ["a", "b", "f"],
      ["a", "g"],
      ["h", "i", "j", "k"],
    ]);
    expect((await store.listNamespaces({ maxDepth: 2 })).sort()).toEqual(
      [
        ["a", "b"],
        ["a", "g"],
        ["h", "i"],
      ].sort(),
    );
  });

  it("should handle empty store in namespace operations", async () => {
    expect(await store.listNamespaces({})).toEqual([]);
  });

  it("should block invalid namespaces", async () => {
    const doc = { foo: "bar" };
    await expectInvalidNamespacesRefused(store, doc);
    await store.put(["foo", "langgraph", "foo"], "bar", doc);
    expect((await store.get(["foo", "langgraph", "foo"], "bar"))?.value).toEqual(doc);
    await store.delete(["foo", "langgraph", "foo"], "bar");
    expect(await store.get(["foo", "langgraph", "foo"], "bar")).toBeNull();
    await expectBatchRoundTrip(store, ["valid", "namespace"], "key", doc);
  });
});

describe.each(stores)("LangGraph's vector suite on %s", (_name, open) => {
  const embeddings = new CharacterEmbeddings(500);
  let store: BaseStore;
  beforeEach(async () => {
    store = await open({ index: { dims: embeddings.dims, embeddings } });
  });

  it("should initialize with embeddings config", async () => {
    const fresh = (await open({ index: { dims: embeddings.dims, embeddings } })) as BaseStore & {
      indexConfig?: { dims: number; embeddings: unknown };
    };
    expect(fresh.indexConfig).toBeDefined();
    expect(fresh.indexConfig?.dims).toBe(embeddings.dims);
    expect(fresh.indexConfig?.embeddings).toBe(embeddings);
  });

  it("should auto-embed and search documents", async () => {
    const docs: Array<[string, Record<string, string>]> = [
      ["doc1", { text: "short text" }],
      ["doc2", { text: "longer text document" }],
      ["doc3", { text: "longest text document here" }],
      ["doc4", { description: "text in description field" }],
      ["doc5", { content: "text in content field" }],
      ["doc6", { body: "text in body field" }],
    ];
    for (const [key, value] of docs) await store.put(["test"], key, value);
    const results = await store.search(["test"], { query: "long text" });
    expect(results.length).toBeGreaterThan(0);
    const order = results.map((result) => result.key);
    expect(order).toContain("doc2");
    expect(order).toContain("doc3");
  });

  it("should update embeddings when documents are updated", async () => {
    await store.put(["test"], "doc1", { text: "zany zebra Xerxes" });
    await store.put(["test"], "doc2", { text: "something about dogs" });
    await store.put(["test"], "doc3", { text: "text about birds" });
    const initial = await store.search(["test"], { query: "Zany Xerxes" });
    expect(initial.length).toBeGreaterThan(0);
    const initialScore = initial[0]?.score;
    expect(initialScore).toBeDefined();
    expect(initial[0]?.key).toBe("doc1");

    await store.put(["test"], "doc1", { text: "new text about dogs" });
    const after = await store.search(["test"], { query: "Zany Xerxes" });
    const afterScore = after.find((result) => result.key === "doc1")?.score ?? 0;
    expect(afterScore).toBeLessThan(initialScore ?? 0);
    const renewed = await store.search(["test"], { query: "new text about dogs" });
    expect(renewed.find((result) => result.key === "doc1")?.score).toBeGreaterThan(afterScore);
  });

  it("should handle non-indexed documents", async () => {
    await store.put(["test"], "doc1", { text: "new text about dogs" });
    await store.put(["test"], "doc2", { text: "new text about dogs" }, false);
    const results = await store.search(["test"], { query: "new text about dogs", limit: 3 });
    expect(results.some((result) => result.key === "doc1")).toBe(true);
    expect(results.some((result) => result.key === "doc2")).toBe(true);
  });

  it("should combine vector search with filters", async () => {
    const docs: Array<[string, Record<string, unknown>]> = [
      ["doc1", { text: "red apple", color: "red", score: 4.5 }],
      ["doc2", { text: "red car", color: "red", score: 3.0 }],
      ["doc3", { text: "green apple", color: "green", score: 4.0 }],
      ["doc4", { text: "blue car", color: "blue", score: 3.5 }],
    ];
    for (const [key, value] of docs) await store.put(["test"], key, value);
    let results = await store.search(["test"], { query: "apple", filter: { color: "red" } });
    expect(results.length).toBe(2);
    expect(results[0]?.key).toBe("doc1");
    results = await store.search(["test"], { query: "car", filter: { color: "red" } });
    expect(results.length).toBe(2);
    expect(results[0]?.key).toBe("doc2");
    results = await store.search(["test"], { query: "bbbbluuu", filter: { score: { $gt: 3.2 } } });
    expect(results.length).toBe(3);
    expect(results[0]?.key).toBe("doc4");
    results = await store.search(["test"], {
      query: "apple",
      filter: { score: { $gte: 4.0 }, color: "green" },
    });
    expect(results.length).toBe(1);
    expect(results[0]?.key).toBe("doc3");
  });

  it("should handle field-specific indexing at store level", async () => {
    const withFields = await open({
      index: { dims: embeddings.dims, embeddings, fields: ["key0", "key1", "key3"] },
    });
    await withFields.put(["test"], "doc1", { key1: "xxx", key2: "yyy", key3: "zzz" });
    await withFields.put(["test"], "doc2", { key0: "uuu", key1: "vvv", key2: "www", key3: "xxx" });
    const first = await withFields.search(["test"], { query: "xxx" });
    expect(first.length).toBe(2);
    expect(first[0]?.key).not.toBe(first[1]?.key);
    expect(first[0]?.score).toBe(first[1]?.score);
    const baseScore = first[0]?.score ?? Number.NaN;
    const second = await withFields.search(["test"], { query: "uuu" });
    expect(second.length).toBe(2);
    expect(second[0]?.key).toBe("doc2");
    expect(second[0]?.score).toBeGreaterThan(second[1]?.score ?? Number.NaN);
    expect(second[0]?.score).toBeCloseTo(baseScore, 5);
    const third = await withFields.search(["test"], { query: "www" });
    expect(third.length).toBe(2);
    expect(third[0]?.score).toBeLessThan(baseScore);
    expect(third[1]?.score).toBeLessThan(baseScore);
  });

  it("should handle field-specific indexing at operation level", async () => {
    const noDefaults = await open({
      index: { dims: embeddings.dims, embeddings, fields: ["key17"] },
    });
    await noDefaults.put(["test"], "doc3", { key0: "aaa", key1: "bbb", key2: "ccc", key3: "ddd" }, [
      "key0",
      "key1",
    ]);
    await noDefaults.put(["test"], "doc4", { key0: "eee", key1: "bbb", key2: "fff", key3: "ggg" }, [
      "key1",
      "key3",
    ]);
    const first = await noDefaults.search(["test"], { query: "aaa" });
    expect(first.length).toBe(2);
    expect(first[0]?.key).toBe("doc3");
    expect(first[0]?.score).toBeGreaterThan(first[1]?.score ?? Number.NaN);
    const second = await noDefaults.search(["test"], { query: "ggg" });
    expect(second.length).toBe(2);
    expect(second[0]?.key).toBe("doc4");
    expect(second[0]?.score).toBeGreaterThan(second[1]?.score ?? Number.NaN);
    const third = await noDefaults.search(["test"], { query: "bbb" });
    expect(third.length).toBe(2);
    expect(third[0]?.key).not.toBe(third[1]?.key);
    expect(third[0]?.score).toBe(third[1]?.score);
    const fourth = await noDefaults.search(["test"], { query: "ccc" });
    expect(fourth.length).toBe(2);
    expect(fourth.every((result) => (result.score ?? 1) < (first[0]?.score ?? 0))).toBe(true);
    await noDefaults.put(["test"], "doc5", { key0: "hhh", key1: "iii" }, false);
    const fifth = await noDefaults.search(["test"], { query: "hhh" });
    expect(fifth.length).toBe(3);
    const doc5 = fifth.find((result) => result.key === "doc5");
    expect(doc5).toBeDefined();
    expect(doc5?.score).toBeUndefined();
  });
});

describe.each(stores)("LangGraph's vector replacement and deletion suites on %s", (name, open) => {
  const apple = (fields = ["text"]) =>
    open({ index: { dims: 2, embeddings: new AppleEmbeddings(), fields } });
  const newer = newerThanInstalled(name);

  it.each<{
    label: string;
    value: Record<string, string>;
    index?: false | string[];
    score?: number;
  }>([
    { label: "disabled indexing", value: { text: "banana" }, index: false },
    { label: "an empty index list", value: { text: "banana" }, index: [] },
    { label: "a missing indexed field", value: { other: "banana" } },
    {
      label: "a different indexed field",
      value: { text: "apple", other: "banana" },
      index: ["other"],
      score: 0,
    },
  ])("replaces previous vectors with $label", async ({ value, index, score }) => {
    const store = await apple();
    await store.put(["docs"], "doc", { text: "apple" });
    await store.put(["docs"], "doc", value, index);
    expect((await store.get(["docs"], "doc"))?.value).toEqual(value);
    const results = await store.search(["docs"], { query: "apple" });
    expect(results).toHaveLength(1);
    // The installed InMemoryStore keeps the earlier vector of a field the put did not embed.
    if (name === "InMemoryStore") {
      expect(results[0]?.score).toBe(1);
    } else {
      expect(results[0]?.score).toBe(score);
    }
  });

  it("replaces vectors for an unchanged field path", async () => {
    const store = await apple();
    await store.put(["docs"], "doc", { text: "apple" });
    await store.put(["docs"], "doc", { text: "banana" });
    expect(await store.search(["docs"], { query: "apple" })).toMatchObject([
      { value: { text: "banana" }, score: 0 },
    ]);
  });

  it("uses only the final put for an item in a batch", async () => {
    const store = await apple();
    await store.put(["docs"], "doc", { text: "apple" });
    const config = (store as unknown as { indexConfig: { embeddings: Embeddings } }).indexConfig;
    const embed = vi.spyOn(config.embeddings, "embedDocuments");
    await store.batch([
      { namespace: ["docs"], key: "doc", value: { text: "banana" } },
      { namespace: ["docs"], key: "doc", value: { text: "final" }, index: false },
    ]);
    expect(embed).not.toHaveBeenCalled();
    expect((await store.get(["docs"], "doc"))?.value).toEqual({ text: "final" });
  });

  it.each(["provider rejection", "missing embedding"])(
    "keeps every value after a %s",
    async (failure) => {
      const store = await apple();
      for (const key of ["first", "second"]) await store.put(["docs"], key, { text: "apple" });
      const config = (store as unknown as { indexConfig: { embeddings: Embeddings } }).indexConfig;
      const embed = vi.spyOn(config.embeddings, "embedDocuments");
      if (failure === "provider rejection") {
        embed.mockRejectedValueOnce(new Error("Embedding provider failed"));
      } else {
        embed.mockResolvedValueOnce([[0, 1]]);
      }
      await expect(
        store.batch([
          { namespace: ["docs"], key: "first", value: { text: "banana" } },
          { namespace: ["docs"], key: "second", value: { text: "cherry" } },
          { namespace: ["docs"], key: "new", value: { text: "banana" } },
        ]),
      ).rejects.toThrow(
        failure === "provider rejection"
          ? "Embedding provider failed"
          : "No embedding found for text: cherry",
      );
      for (const key of ["first", "second"]) {
        expect((await store.get(["docs"], key))?.value).toEqual({ text: "apple" });
      }
      expect(await store.get(["docs"], "new")).toBeNull();
    },
  );

  newer("does not reuse deleted vectors", async () => {
    const store = await apple();
    await store.put(["docs"], "doc", { text: "apple" });
    await store.delete(["docs"], "doc");
    await store.put(["docs"], "doc", { text: "banana" }, false);
    const results = await store.search(["docs"], { query: "apple" });
    expect(results).toHaveLength(1);
    expect(results[0]?.score).toBeUndefined();
  });

  it.each([true, false])(
    "deletes items without vectors idempotently (index configured: %s)",
    async (indexed) => {
      const store = indexed ? await apple() : await open();
      await store.put(["docs"], "kept", { text: "apple" });
      await store.put(["docs"], "unindexed", { text: "banana" }, false);
      await store.delete(["docs"], "unindexed");
      await store.delete(["docs"], "unindexed");
      await store.delete(["docs"], "missing");
      await store.delete(["missing"], "missing");
      expect(await store.get(["docs"], "unindexed")).toBeNull();
      expect(await store.get(["missing"], "missing")).toBeNull();
      expect(await store.search(["docs"], { query: "apple" })).toMatchObject([
        { key: "kept", score: indexed ? 1 : undefined },
      ]);
    },
  );
});

describe.each(stores)("LangGraph's vector pagination suite on %s", (name, open) => {
  const match = () =>
    open({ index: { dims: 2, embeddings: new MatchEmbeddings(), fields: ["text"] } });
  const mixed = async () => {
    const store = await match();
    const rows: Array<[string, string, false | undefined]> = [
      ["unindexed-1", "match", false],
      ["indexed-1", "match", undefined],
      ["unindexed-2", "match", false],
      ["indexed-2", "other", undefined],
      ["unindexed-3", "match", false],
      ["unindexed-4", "match", false],
    ];
    for (const [key, text, index] of rows) await store.put(["docs"], key, { text }, index);
    return store;
  };
  // The installed InMemoryStore applies the offset to scored items only (fixed upstream since).
  const newer = newerThanInstalled(name);

  it.each<[number, string[]]>([[0, ["indexed-1", "indexed-2"]]])(
    "paginates mixed results at offset %i",
    async (offset, keys) => {
      const store = await mixed();
      const results = await store.search(["docs"], { query: "match", offset, limit: 2 });
      expect(results.map((item) => item.key)).toEqual(keys);
    },
  );

  newer("paginates mixed results past the scored ones", async () => {
    const store = await mixed();
    for (const [offset, keys] of [
      [1, ["indexed-2", "unindexed-1"]],
      [2, ["unindexed-1", "unindexed-2"]],
      [5, ["unindexed-4"]],
      [6, []],
    ] as const) {
      const results = await store.search(["docs"], { query: "match", offset, limit: 2 });
      expect(results.map((item) => item.key)).toEqual(keys);
    }
  });

  it.each([0, 1, 3, 8])("returns no items for limit zero at offset %i", async (offset) => {
    const store = await mixed();
    expect(await store.search(["docs"], { query: "match", offset, limit: 0 })).toEqual([]);
  });

  it("preserves pagination and relevance ordering for indexed items", async () => {
    const store = await match();
    await store.put(["docs"], "lower-score", { text: "other" });
    await store.put(["docs"], "higher-score", { text: "match" });
    const results = await store.search(["docs"], { query: "match", offset: 1, limit: 1 });
    expect(results.map((item) => item.key)).toEqual(["lower-score"]);
    expect(results[0]?.score).toBe(0);
  });
});
