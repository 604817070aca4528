import { join } from "node:path";
import {
  Annotation,
  type BaseStore,
  END,
  InMemoryStore,
  type LangGraphRunnableConfig,
  START,
  StateGraph,
} from "@langchain/langgraph";
import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import { EmbeddedStore } from "../../src/context/embedded/embedded-store.js";
import { InvalidStateValueError } from "../../src/crdt/errors/invalid-state-value-error.js";
import {
  Disputed,
  nodeStore,
  SyncedStore,
  UnsupportedItemValueError,
} from "../../src/langgraph.js";
import { deferred } from "../support/deferred.js";
import { useTempDir } from "../support/temp-dir.js";

const State = Annotation.Root({
  ran: Annotation<string[]>({ reducer: (left, right) => left.concat(right), default: () => [] }),
});

type NodeWork = (store: BaseStore, config: LangGraphRunnableConfig) => Promise<void>;

/**
 * A graph whose nodes run in parallel in one step: each reads `["plan"]/"trip"` through the store,
 * waits until every node has read (as parallel agents do), then runs its work.
 * @param via `config.store` (LangGraph's usual way) or `nodeStore(config)`.
 */
function parallelGraph(
  store: BaseStore,
  work: Record<string, NodeWork>,
  via: "config.store" | "nodeStore" = "config.store",
) {
  const names = Object.keys(work);
  let arrived = 0;
  const allRead = deferred();
  let graph = new StateGraph(State);
  for (const name of names) {
    graph = graph.addNode(name, async (_state: unknown, config: LangGraphRunnableConfig) => {
      const view = via === "nodeStore" ? nodeStore(config) : config.store;
      if (!view) throw new Error("no store");
      await view.get(["plan"], "trip");
      arrived += 1;
      if (arrived === names.length) allRead.resolve();
      await allRead.promise;
      await work[name]?.(view, config);
      return { ran: [name] };
    }) as typeof graph;
  }
  const edges = graph as unknown as {
    addEdge(from: string, to: string): unknown;
    compile(options: { store: BaseStore }): { invoke(input: object): Promise<{ ran: string[] }> };
  };
  for (const name of names) {
    edges.addEdge(START, name);
    edges.addEdge(name, END);
  }
  return edges.compile({ store });
}

/** A node's read-modify-write of the trip: what it read, changed by `change`. */
function update(change: (trip: Record<string, unknown>) => Record<string, unknown>): NodeWork {
  return async (store) => {
    const trip = await store.get(["plan"], "trip");
    await store.put(["plan"], "trip", change({ ...(trip?.value ?? {}) }));
  };
}

/** Flights and hotels each put a different budget, both having read the same trip: one dispute. */
async function disputeBudget(store: BaseStore): Promise<void> {
  await parallelGraph(store, {
    flights: async (view) => view.put(["plan"], "trip", { budget: 900 }),
    hotels: async (view) => view.put(["plan"], "trip", { budget: 1200 }),
  }).invoke({});
}

function contendersOf(value: unknown) {
  expect(value).toBeInstanceOf(Disputed);
  return (value as Disputed).contenders
    .map(({ agentId, value }) => ({ agentId, value }))
    .sort((left, right) => (left.agentId < right.agentId ? -1 : 1));
}

describe("SyncedStore", () => {
  const tempDir = useTempDir("shared-ctx-langgraph-");
  const toClose: Array<{ close(): Promise<void> }> = [];
  afterEach(async () => {
    for (const closable of toClose.splice(0).reverse()) await closable.close();
  });

  async function openSynced(options: { path?: string; now?: () => number } = {}) {
    const store = new EmbeddedStore({ path: options.path ?? ":memory:" });
    toClose.push(store);
    const synced = await SyncedStore.open({
      store,
      subjectId: "trip",
      ...(options.now ? { now: options.now } : {}),
    });
    toClose.push(synced);
    return { store, synced };
  }

  describe("one writer: what LangGraph's InMemoryStore does", () => {
    /** The same operations on LangGraph's own store and on ours, results side by side. */
    async function both(script: (store: BaseStore) => Promise<unknown>) {
      const { synced } = await openSynced();
      const expected = await script(new InMemoryStore());
      const actual = await script(synced);
      return { expected: strip(expected), actual: strip(actual) };
    }
    /** Items without their timestamps (compared separately below). */
    function strip(value: unknown): unknown {
      return JSON.parse(
        JSON.stringify(value, (key, inner) =>
          key === "createdAt" || key === "updatedAt" ? undefined : inner,
        ),
      );
    }

    it.each([
      [
        "put replaces the item (a field left out is gone)",
        async (store: BaseStore) => {
          await store.put(["plan"], "trip", { a: 1 });
          await store.put(["plan"], "trip", { b: 2 });
          return store.get(["plan"], "trip");
        },
      ],
      [
        "a shorter list removes elements, in the order written",
        async (store: BaseStore) => {
          await store.put(["plan"], "trip", { bookings: ["a", "b", "c"] });
          await store.put(["plan"], "trip", { bookings: ["c", "a"] });
          return store.get(["plan"], "trip");
        },
      ],
      [
        "nested keys are removed, scalars become objects and back",
        async (store: BaseStore) => {
          await store.put(["plan"], "trip", { hotel: { name: "Adlon", nights: 2 }, x: 1 });
          await store.put(["plan"], "trip", { hotel: { name: "Adlon" }, x: { y: [] } });
          await store.put(["plan"], "trip", { hotel: {}, x: "z" });
          return store.get(["plan"], "trip");
        },
      ],
      [
        "delete deletes; deleting a missing item is fine; put after delete starts over",
        async (store: BaseStore) => {
          await store.put(["plan"], "trip", { a: 1, b: [1] });
          await store.delete(["plan"], "trip");
          const deleted = await store.get(["plan"], "trip");
          await store.delete(["plan"], "never");
          await store.put(["plan"], "trip", { c: 3 });
          return [deleted, await store.get(["plan"], "trip"), await store.listNamespaces()];
        },
      ],
      [
        "search filters, pages and skips deleted items; listNamespaces matches and truncates",
        async (store: BaseStore) => {
          await store.put(["users", "ada"], "prefs", { theme: "dark", age: 36 });
          await store.put(["users", "bob"], "prefs", { theme: "light", age: 20 });
          await store.put(["users", "cy"], "prefs", { theme: "light", age: 50 });
          await store.put(["docs"], "gone", { theme: "light" });
          await store.delete(["docs"], "gone");
          return [
            await store.search(["users"], { filter: { theme: "light" } }),
            await store.search(["users"], { filter: { age: { $gte: 30 } } }),
            await store.search(["users"], { limit: 1, offset: 1 }),
            await store.search([]),
            await store.listNamespaces({ prefix: ["users"], maxDepth: 1 }),
            await store.listNamespaces({ suffix: ["bob"] }),
            await store.listNamespaces(),
          ];
        },
      ],
    ])("%s", async (_name, script) => {
      const { expected, actual } = await both(script);
      expect(actual).toEqual(expected);
    });

    it("matches InMemoryStore on any sequence of puts, deletes and gets", async () => {
      const value = fc.dictionary(
        fc.constantFrom("a", "b", "list", "nested", "__proto__"),
        fc.oneof(
          fc.integer({ min: 0, max: 3 }),
          fc.constantFrom("x", "y", null, true),
          fc.array(fc.constantFrom(1, 2, 3, "z"), { maxLength: 4 }),
          fc.dictionary(fc.constantFrom("p", "q"), fc.oneof(fc.integer(), fc.constant({}))),
        ),
      );
      const operation = fc.oneof(
        fc.record({ kind: fc.constant("put" as const), key: fc.constantFrom("k1", "k2"), value }),
        fc.record({ kind: fc.constant("delete" as const), key: fc.constantFrom("k1", "k2") }),
      );
      await fc.assert(
        fc.asyncProperty(fc.array(operation, { maxLength: 8 }), async (operations) => {
          const store = new EmbeddedStore({ path: ":memory:" });
          const synced = await SyncedStore.open({ store, subjectId: "property" });
          const reference = new InMemoryStore();
          try {
            for (const step of operations) {
              for (const target of [synced, reference]) {
                if (step.kind === "put") await target.put(["ns"], step.key, step.value);
                else await target.delete(["ns"], step.key);
              }
              for (const key of ["k1", "k2"]) {
                const actual = await synced.get(["ns"], key);
                const expected = await reference.get(["ns"], key);
                expect(actual?.value ?? null).toStrictEqual(
                  expected ? JSON.parse(JSON.stringify(expected.value)) : null,
                );
              }
            }
          } finally {
            await synced.close();
            await store.close();
          }
        }),
        { numRuns: 60 },
      );
    });

    it("reports createdAt and updatedAt of the writes, the same on every read", async () => {
      let clock = 1_000;
      const { synced } = await openSynced({ now: () => clock });
      await synced.put(["plan"], "trip", { a: 1 });
      clock = 2_000;
      await synced.put(["plan"], "trip", { a: 2 });
      clock = 9_000;
      const first = await synced.get(["plan"], "trip");
      clock = 10_000;
      const second = await synced.get(["plan"], "trip");
      expect(first?.createdAt).toEqual(new Date(1_000));
      expect(first?.updatedAt).toEqual(new Date(2_000));
      expect(second).toEqual(first);

      clock = 11_000;
      await synced.delete(["plan"], "trip");
      clock = 12_000;
      await synced.put(["plan"], "trip", { a: 3 });
      expect((await synced.get(["plan"], "trip"))?.createdAt).toEqual(new Date(12_000));
    });

    it("refuses a value it cannot carry, naming item, field and type: nothing of its batch is written", async () => {
      const { synced } = await openSynced();
      await synced.put(["plan"], "trip", { a: 1 });
      class Ticket {}
      const refused = synced.batch([
        { namespace: ["plan"], key: "trip", value: { a: 2 } },
        { namespace: ["plan"], key: "other", value: { when: { ticket: new Ticket() } } },
      ]);
      await expect(refused).rejects.toThrow(InvalidStateValueError);
      await expect(refused).rejects.toThrow(UnsupportedItemValueError);
      await expect(refused).rejects.toThrow(
        'SyncedStore cannot store a Ticket instance in item ["plan"] / "other" at field "when.ticket"',
      );
      expect((await synced.get(["plan"], "trip"))?.value).toEqual({ a: 1 });
      expect(await synced.get(["plan"], "other")).toBeNull();
    });
  });

  describe("parallel nodes of a StateGraph", () => {
    it.each(["config.store", "nodeStore"] as const)(
      "through %s: keeps both nodes' list items and escalates the scalar, naming both nodes",
      async (via) => {
        const { synced } = await openSynced();
        const result = await parallelGraph(
          synced,
          {
            flights: async (store) =>
              store.put(["plan"], "trip", { bookings: ["flight LH123"], budget: 900 }),
            hotels: async (store) =>
              store.put(["plan"], "trip", { bookings: ["hotel Adlon"], budget: 1200 }),
          },
          via,
        ).invoke({});
        expect([...result.ran].sort()).toEqual(["flights", "hotels"]);

        const trip = await synced.get(["plan"], "trip");
        expect([...((trip?.value.bookings ?? []) as string[])].sort()).toEqual([
          "flight LH123",
          "hotel Adlon",
        ]);
        expect(contendersOf(trip?.value.budget)).toEqual([
          { agentId: "flights", value: 900 },
          { agentId: "hotels", value: 1200 },
        ]);
        const escalations = await synced.escalations();
        expect(escalations.map(({ key, reason }) => ({ key, reason }))).toEqual([
          { key: "budget", reason: "concurrent-register" },
        ]);
      },
    );

    it("counts only what each node changed: a field read and written back is no write", async () => {
      const { synced } = await openSynced();
      await synced.put(["plan"], "trip", {
        bookings: ["train", "taxi"],
        budget: 500,
        owner: "ada",
        hotel: { city: "Berlin" },
      });
      await parallelGraph(synced, {
        flights: update((trip) => ({
          ...trip,
          bookings: ["train", "flight"],
          hotel: { city: "Berlin", stars: 4 },
        })),
        hotels: update((trip) => ({
          ...trip,
          bookings: [...(trip.bookings as string[]), "hotel"],
          hotel: { city: "Berlin", nights: 2 },
        })),
      }).invoke({});

      const trip = await synced.get(["plan"], "trip");
      expect(trip?.value).toEqual({
        // flights removed the taxi and added the flight; hotels added the hotel and still holds
        // the taxi, which stays: concurrent lists merge add-wins (docs/integrations.md).
        bookings: expect.arrayContaining(["train", "taxi", "hotel", "flight"]),
        budget: 500,
        owner: "ada",
        hotel: { city: "Berlin", stars: 4, nights: 2 },
      });
      expect(trip?.value.bookings).toHaveLength(4);
      expect(await synced.escalations()).toEqual([]);
    });

    it("escalates a delete concurrent with an update instead of losing the update", async () => {
      const { synced } = await openSynced();
      await synced.put(["plan"], "trip", { budget: 500, notes: "x" });
      await parallelGraph(synced, {
        cancel: async (store) => store.delete(["plan"], "trip"),
        raise: update((trip) => ({ ...trip, budget: 700 })),
      }).invoke({});

      const trip = await synced.get(["plan"], "trip");
      const budget = trip?.value.budget as Disputed;
      expect(budget.contenders).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ agentId: "cancel", removed: true }),
          expect.objectContaining({ agentId: "raise", value: 700 }),
        ]),
      );
      // The field nobody updated is deleted as asked.
      expect(trip?.value).not.toHaveProperty("notes");

      // Settling the item's dispute settles the field's below it too.
      const item = (await synced.escalations()).find((escalation) => escalation.key === "");
      await synced.resolve(item?.id ?? "", { budget: 600 }, { by: "lead" });
      expect((await synced.get(["plan"], "trip"))?.value).toEqual({ budget: 600 });
      const escalations = await synced.escalations();
      expect(escalations.map(({ key, resolution }) => ({ key, by: resolution?.by }))).toEqual([
        { key: "", by: "lead" },
        { key: "budget", by: "lead" },
      ]);
    });

    it("escalates a delete concurrent with a put that only adds a field: the item is disputed", async () => {
      const { synced } = await openSynced();
      await synced.put(["plan"], "trip", { budget: 500 });
      await parallelGraph(synced, {
        cancel: async (store) => store.delete(["plan"], "trip"),
        annotate: update((trip) => ({ ...trip, note: "window seat" })),
      }).invoke({});

      const escalations = await synced.escalations();
      expect(escalations.map(({ key, reason }) => ({ key, reason }))).toEqual([
        { key: "", reason: "kind-mismatch" },
      ]);
      expect(escalations[0]?.contenders).toHaveLength(2);
      expect(escalations[0]?.contenders).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ agentId: "annotate", value: { note: "window seat" } }),
          expect.objectContaining({ agentId: "cancel", removed: true }),
        ]),
      );
      // Settled by choosing the item's value.
      await synced.resolve(escalations[0]?.id ?? "", { budget: 500 }, { by: "lead" });
      expect((await synced.get(["plan"], "trip"))?.value).toEqual({ budget: 500 });
    });

    it("lets the next step write back a disputed item, joins a dispute, and resolves it from LangGraph", async () => {
      const { synced } = await openSynced();
      await parallelGraph(synced, {
        flights: async (store) => store.put(["plan"], "trip", { budget: 900, bookings: [] }),
        hotels: async (store) => store.put(["plan"], "trip", { budget: 1200, bookings: [] }),
      }).invoke({});
      const [escalation] = await synced.escalations();
      if (!escalation) throw new Error("expected an escalation");

      // A later node reads the item (budget is a Disputed) and writes it back with one change.
      const later = new StateGraph(State)
        .addNode("planner", async (_state, config) => {
          const trip = await config.store?.get(["plan"], "trip");
          await config.store?.put(["plan"], "trip", { ...trip?.value, bookings: ["train"] });
          return { ran: ["planner"] };
        })
        .addEdge(START, "planner")
        .addEdge("planner", END)
        .compile({ store: synced });
      await later.invoke({});
      let trip = await synced.get(["plan"], "trip");
      expect(trip?.value.bookings).toEqual(["train"]);
      expect(trip?.value.budget).toMatchObject({ escalationId: escalation.id });
      expect(contendersOf(trip?.value.budget)).toHaveLength(2);

      // A write into the disputed field joins the dispute: the writer's side changes.
      await synced.asAgent("flights").put(["plan"], "trip", { ...trip?.value, budget: 1000 });
      trip = await synced.get(["plan"], "trip");
      expect(contendersOf(trip?.value.budget)).toEqual([
        { agentId: "flights", value: 1000 },
        { agentId: "hotels", value: 1200 },
      ]);

      await synced.resolve(escalation.id, 1100, { by: "lead" });
      trip = await synced.get(["plan"], "trip");
      expect(trip?.value).toEqual({ budget: 1100, bookings: ["train"] });
      const [resolved] = await synced.escalations();
      expect(resolved?.resolution).toMatchObject({ value: 1100, by: "lead" });
    });

    it("lets each step see the previous step's writes: a sequence of nodes is no conflict", async () => {
      const { synced } = await openSynced();
      const graph = new StateGraph(State)
        .addNode("first", async (_state, config) => {
          await config.store?.put(["plan"], "trip", { budget: 900, bookings: ["a", "b"] });
          return { ran: ["first"] };
        })
        .addNode("second", async (_state, config) => {
          const trip = await config.store?.get(["plan"], "trip");
          expect(trip?.value.budget).toBe(900);
          await config.store?.put(["plan"], "trip", { budget: 1000, bookings: ["b"] });
          return { ran: ["second"] };
        })
        .addEdge(START, "first")
        .addEdge("first", "second")
        .addEdge("second", END)
        .compile({ store: synced });
      await graph.invoke({});
      await graph.invoke({});
      expect((await synced.get(["plan"], "trip"))?.value).toEqual({
        budget: 1000,
        bookings: ["b"],
      });
      expect(await synced.escalations()).toEqual([]);
    });

    it("escalates a field made an object by one node and a scalar by another, and resolves it", async () => {
      const { synced } = await openSynced();
      await parallelGraph(synced, {
        flights: async (store) => store.put(["plan"], "trip", { hotel: "Adlon" }),
        hotels: async (store) =>
          store.put(["plan"], "trip", { hotel: { name: "Adlon", nights: 2 } }),
      }).invoke({});
      const trip = await synced.get(["plan"], "trip");
      expect(contendersOf(trip?.value.hotel)).toEqual([
        { agentId: "flights", value: "Adlon" },
        { agentId: "hotels", value: { name: "Adlon", nights: 2 } },
      ]);
      const [escalation] = await synced.escalations();
      expect(escalation?.reason).toBe("kind-mismatch");

      await synced.resolve(escalation?.id ?? "", { name: "Adlon" }, { by: "lead" });
      expect((await synced.get(["plan"], "trip"))?.value).toEqual({ hotel: { name: "Adlon" } });
      await synced.put(["plan"], "trip", { hotel: "Ritz" });
      expect((await synced.get(["plan"], "trip"))?.value).toEqual({ hotel: "Ritz" });
    });

    it("reports a throwing onEscalation listener to onError; the other listeners and the write go on", async () => {
      const store = new EmbeddedStore({ path: ":memory:" });
      toClose.push(store);
      const errors: unknown[] = [];
      const synced = await SyncedStore.open({
        store,
        subjectId: "trip",
        onError: (error) => errors.push(error),
      });
      toClose.push(synced);
      const failure = new Error("listener failed");
      synced.onEscalation(() => {
        throw failure;
      });
      const seen: string[] = [];
      synced.onEscalation((escalation) => seen.push(escalation.key));
      await disputeBudget(synced);
      expect(seen).toEqual(["budget"]);
      expect(errors).toEqual([failure]);
    });

    it("calls onEscalation once for a new dispute", async () => {
      const { synced } = await openSynced();
      const seen: string[] = [];
      synced.onEscalation((escalation) => seen.push(escalation.key));
      await disputeBudget(synced);
      await synced.get(["plan"], "trip");
      expect(seen).toEqual(["budget"]);
    });
  });

  it("persists the merged item for a store opened later on the same database", async () => {
    const path = join(tempDir(), "graph.db");
    const first = await openSynced({ path });
    await parallelGraph(first.synced, {
      flights: async (store) => store.put(["plan"], "trip", { bookings: ["flight"], budget: 900 }),
      hotels: async (store) => store.put(["plan"], "trip", { bookings: ["hotel"], budget: 1200 }),
    }).invoke({});
    await first.synced.close();

    const later = await openSynced({ path });
    const trip = await later.synced.get(["plan"], "trip");
    expect([...((trip?.value.bookings ?? []) as string[])].sort()).toEqual(["flight", "hotel"]);
    expect(trip?.value.budget).toBeInstanceOf(Disputed);
    expect(await later.synced.listNamespaces()).toEqual([["plan"]]);
    expect((await later.synced.search(["plan"])).map((item) => item.key)).toEqual(["trip"]);
  });
});
