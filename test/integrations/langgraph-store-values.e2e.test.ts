import { join } from "node:path";
import { type BaseStore, InMemoryStore } from "@langchain/langgraph";
import { InvalidNamespaceError } from "@langchain/langgraph-checkpoint";
import { afterEach, describe, expect, it } from "vitest";
import { EmbeddedStore } from "../../src/context/embedded/embedded-store.js";
import { itemNamespace, operationsField } from "../../src/integrations/langgraph-items.js";
import {
  Disputed,
  EscalationAlreadyResolvedError,
  SyncedStore,
  UnsupportedItemValueError,
} from "../../src/langgraph.js";
import { spawnTsChild, waitForExit } from "../support/run-child.js";
import { useTempDir } from "../support/temp-dir.js";

const toClose: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  for (const closable of toClose.splice(0).reverse()) await closable.close();
});

async function openSynced(path = ":memory:") {
  const store = new EmbeddedStore({ path });
  toClose.push(store);
  const synced = await SyncedStore.open({ store, subjectId: "values" });
  toClose.push(synced);
  return { store, synced };
}

/** Values `InMemoryStore` keeps (it holds them by reference) that JSON alone would change. */
const values: Array<[string, unknown]> = [
  ["an array", [1, 2]],
  ["a string", "hello"],
  ["a number", 42],
  ["a Date", { when: new Date(Date.UTC(2026, 11, 1, 20, 0)) }],
  ["an invalid Date", { when: new Date(Number.NaN) }],
  ["NaN, ±Infinity and -0", { nan: Number.NaN, up: Infinity, down: -Infinity, zero: -0 }],
  [
    "a Map",
    {
      seats: new Map<unknown, unknown>([
        ["12A", { by: "ada" }],
        [3, [true]],
      ]),
    },
  ],
  ["a Set", { tags: new Set(["x", "y"]) }],
  ["a bigint", { id: 12345678901234567890n }],
  ["a RegExp", { pattern: /tri?p/gi }],
  ["undefined in an array", { list: [1, undefined, 3] }],
  ["nested non-JSON in lists", { log: [{ at: new Date(0) }, new Map([["k", 1n]])] }],
  ["a top-level Map", new Map([["a", 1]])],
];

describe("SyncedStore values", () => {
  it.each(values)("round-trips %s as InMemoryStore does", async (_label, value) => {
    const { synced } = await openSynced();
    const reference = new InMemoryStore();
    for (const store of [synced, reference] as BaseStore[]) {
      // BaseStore types values as records; InMemoryStore takes any value, and so must we.
      await store.put(["ns"], "k", value as Record<string, unknown>);
    }
    const expected = (await reference.get(["ns"], "k"))?.value;
    expect((await synced.get(["ns"], "k"))?.value).toStrictEqual(expected);
    expect((await synced.search(["ns"]))[0]?.value).toStrictEqual(expected);
  });

  it("reads the same values back in another process's replica", async () => {
    const path = join(tempDir(), "values.db");
    const first = await openSynced(path);
    for (const [position, [, value]] of values.entries()) {
      await first.synced.put(["ns"], `k${position}`, value as Record<string, unknown>);
    }
    const later = await openSynced(path);
    for (const [position, [, value]] of values.entries()) {
      expect((await later.synced.get(["ns"], `k${position}`))?.value).toStrictEqual(value);
    }
  });
  const tempDir = useTempDir("shared-ctx-values-");

  it("replaces a list by an object and back, as InMemoryStore", async () => {
    const { synced } = await openSynced();
    await synced.put(["ns"], "k", [1, 2] as unknown as Record<string, unknown>);
    await synced.put(["ns"], "k", { a: 1 });
    expect((await synced.get(["ns"], "k"))?.value).toStrictEqual({ a: 1 });
    await synced.put(["ns"], "k", ["x"] as unknown as Record<string, unknown>);
    expect((await synced.get(["ns"], "k"))?.value).toStrictEqual(["x"]);
  });

  it.each<[string, unknown, string]>([
    [
      "a class instance",
      { seat: new (class Seat {})() },
      'a Seat instance in item ["ns"] / "k" at field "seat"',
    ],
    ["a function", { call: () => 1 }, 'a function in item ["ns"] / "k" at field "call"'],
    ["a symbol", { tag: Symbol("x") }, 'a symbol in item ["ns"] / "k" at field "tag"'],
    [
      "a typed array",
      { bytes: new Uint8Array(2) },
      'a Uint8Array instance in item ["ns"] / "k" at field "bytes"',
    ],
    [
      "a nested instance in a list",
      { list: [new (class Leg {})()] },
      'a Leg instance in item ["ns"] / "k" at field "list"',
    ],
  ])("refuses %s, naming the item, the field and the type", async (_label, value, message) => {
    const { synced } = await openSynced();
    const put = synced.put(["ns"], "k", value as Record<string, unknown>);
    await expect(put).rejects.toThrow(UnsupportedItemValueError);
    await expect(put).rejects.toThrow(`SyncedStore cannot store ${message}`);
    expect(await synced.get(["ns"], "k")).toBeNull();
  });
});

describe("SyncedStore namespaces", () => {
  const invalid: string[][] = [[], ["a.b"], ["a:b"], ["a", ""], ["x\0y"]];

  it.each(invalid.map((namespace) => [JSON.stringify(namespace), namespace] as const))(
    "refuses %s in every path, as InMemoryStore does",
    async (_label, namespace) => {
      const { synced } = await openSynced();
      const reference = new InMemoryStore();
      for (const store of [reference, synced] as BaseStore[]) {
        await expect(store.put(namespace, "k", { a: 1 })).rejects.toThrow(InvalidNamespaceError);
        await expect(store.batch([{ namespace, key: "k", value: { a: 1 } }])).rejects.toThrow(
          InvalidNamespaceError,
        );
        await expect(store.batch([{ namespace, key: "k" }])).rejects.toThrow(InvalidNamespaceError);
        await expect(store.get(namespace, "k")).rejects.toThrow(InvalidNamespaceError);
        await expect(store.delete(namespace, "k")).rejects.toThrow(InvalidNamespaceError);
        if (namespace.length > 0) {
          await expect(store.search(namespace)).rejects.toThrow(InvalidNamespaceError);
        }
        expect(await store.listNamespaces()).toEqual([]);
      }
    },
  );

  it("refuses a whole batch when one operation has an invalid namespace", async () => {
    const { synced } = await openSynced();
    await expect(
      synced.batch([
        { namespace: ["ok"], key: "k", value: { a: 1 } },
        { namespace: ["a.b"], key: "k", value: { a: 1 } },
      ]),
    ).rejects.toThrow(InvalidNamespaceError);
    expect(await synced.get(["ok"], "k")).toBeNull();
  });

  it("never lists or finds an invalid namespace another writer stored", async () => {
    const { synced } = await openSynced();
    await synced.put(["ok"], "k", { a: 1 });
    // An older version wrote an item under ["a.b"] straight into shared state.
    await synced.state.put(itemNamespace(["a.b"], "k"), operationsField, [
      { id: "old-1", agent: "old", at: 1, parents: [], depth: 1, changes: [{ p: [], set: {} }] },
    ]);
    expect(await synced.listNamespaces()).toEqual([["ok"]]);
    expect((await synced.search([])).map((item) => item.namespace)).toEqual([["ok"]]);
  });
});

describe("README's LangGraph quick start", () => {
  it("keeps both bookings of README's LangGraph quick start run three times on one database", async () => {
    const path = join(tempDir(), "quick-start.db");
    for (let run = 1; run <= 3; run += 1) {
      const child = spawnTsChild("examples/langgraph-parallel-nodes.ts", [path]);
      const result = await waitForExit(child);
      expect(result.stderr).toBe("");
      expect(result.code).toBe(0);
      const resolved = result.stdout.split("\n").find((line) => line.startsWith("resolved:"));
      const trip = JSON.parse(resolved?.slice("resolved:".length) ?? "null");
      expect([...trip.bookings].sort()).toEqual(["flight LH123", "hotel Adlon"]);
      expect(trip.budget).toBe(1000);
    }
    const store = new EmbeddedStore({ path });
    toClose.push(store);
    const reopened = await SyncedStore.open({ store, subjectId: "trip-berlin" });
    toClose.push(reopened);
    const trip = await reopened.get(["trips"], "berlin");
    expect([...((trip?.value.bookings ?? []) as string[])].sort()).toEqual([
      "flight LH123",
      "hotel Adlon",
    ]);
    // Each run disputed the budget anew and resolved it: three escalations, all settled.
    const escalations = await reopened.escalations();
    expect(escalations.map((escalation) => escalation.resolution?.value)).toEqual([
      1000, 1000, 1000,
    ]);
  }, 60_000);
  const tempDir = useTempDir("shared-ctx-quick-start-");
});

describe("deliberate differences from InMemoryStore (docs/integrations.md)", () => {
  it("returns a copy: mutating what get returned changes nothing stored", async () => {
    const { synced } = await openSynced();
    const reference = new InMemoryStore();
    for (const store of [synced, reference] as BaseStore[]) {
      await store.put(["ns"], "k", { list: [1] });
      const item = await store.get(["ns"], "k");
      (item?.value.list as number[] | undefined)?.push(2);
    }
    expect((await reference.get(["ns"], "k"))?.value).toEqual({ list: [1, 2] });
    expect((await synced.get(["ns"], "k"))?.value).toEqual({ list: [1] });
  });

  it("orders search and listNamespaces by code units, not insertion order or locale", async () => {
    const { synced } = await openSynced();
    const reference = new InMemoryStore();
    for (const store of [synced, reference] as BaseStore[]) {
      await store.put(["ns"], "b", { n: 1 });
      await store.put(["ns"], "a", { n: 2 });
      await store.put(["a"], "k", { n: 3 });
      await store.put(["B"], "k", { n: 4 });
    }
    expect((await reference.search(["ns"])).map((item) => item.key)).toEqual(["b", "a"]);
    expect((await synced.search(["ns"])).map((item) => item.key)).toEqual(["a", "b"]);
    expect(await reference.listNamespaces()).toEqual([["a"], ["B"], ["ns"]]);
    expect(await synced.listNamespaces()).toEqual([["B"], ["a"], ["ns"]]);
  });

  it("merges a Map as one cell: concurrent changes to it dispute it whole", async () => {
    const { synced } = await openSynced();
    await synced.put(["ns"], "k", { seats: new Map([["12A", "ada"]]) });
    // Two nodes of one LangGraph step: each sees the store as the step began.
    const node = (name: string) =>
      synced.forNode({
        metadata: { langgraph_node: name, langgraph_step: 1, langgraph_checkpoint_ns: `${name}:1` },
        configurable: { thread_id: "t" },
      });
    const [left, right] = [node("left"), node("right")];
    await left.get(["ns"], "k");
    await right.get(["ns"], "k");
    await left.put(["ns"], "k", {
      seats: new Map([
        ["12A", "ada"],
        ["12B", "bob"],
      ]),
    });
    await right.put(["ns"], "k", {
      seats: new Map([
        ["12A", "ada"],
        ["12C", "cy"],
      ]),
    });
    const seats = (await synced.get(["ns"], "k"))?.value.seats;
    expect(seats).toBeInstanceOf(Disputed);
    // Resolved once, for good: a second resolution is refused and the first stands.
    const escalationId = (seats as Disputed).escalationId;
    await synced.resolve(escalationId, new Map([["12A", "ada"]]), { by: "lead" });
    await expect(synced.resolve(escalationId, "x", { by: "other" })).rejects.toThrow(
      EscalationAlreadyResolvedError,
    );
    expect((await synced.get(["ns"], "k"))?.value.seats).toStrictEqual(new Map([["12A", "ada"]]));
    expect((seats as Disputed).contenders.map((contender) => contender.value)).toEqual(
      expect.arrayContaining([
        new Map([
          ["12A", "ada"],
          ["12B", "bob"],
        ]),
        new Map([
          ["12A", "ada"],
          ["12C", "cy"],
        ]),
      ]),
    );
  });
});
