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
import { afterEach, describe, expect, it } from "vitest";
import { EmbeddedStore } from "../../src/context/embedded-store.js";
import { Disputed } from "../../src/crdt/shared-state.js";
import { nodeStore, SyncedStore } from "../../src/langgraph.js";
import { deferred } from "../support/deferred.js";
import { useTempDir } from "../support/temp-dir.js";

const State = Annotation.Root({
  ran: Annotation<string[]>({ reducer: (left, right) => left.concat(right), default: () => [] }),
});

const flights = { bookings: ["flight LH123"], budget: 900 };
const hotels = { bookings: ["hotel Adlon"], budget: 1200 };

/**
 * Two parallel nodes that each read the trip, then (once both have read, as parallel agents do)
 * write their part of it to the same key.
 */
function twoParallelWriters(store: BaseStore) {
  let arrived = 0;
  const bothRead = deferred();
  const writer =
    (value: Record<string, unknown>) =>
    async (_state: unknown, config: LangGraphRunnableConfig) => {
      const nodeView = nodeStore(config);
      await nodeView.get(["plan"], "trip");
      arrived += 1;
      if (arrived === 2) bothRead.resolve();
      await bothRead.promise;
      await nodeView.put(["plan"], "trip", value);
      return { ran: [String(config.metadata?.langgraph_node)] };
    };
  return new StateGraph(State)
    .addNode("flights", writer(flights))
    .addNode("hotels", writer(hotels))
    .addEdge(START, "flights")
    .addEdge(START, "hotels")
    .addEdge("flights", END)
    .addEdge("hotels", END)
    .compile({ store });
}

describe("SyncedStore in a LangGraph StateGraph", () => {
  const tempDir = useTempDir("shared-ctx-langgraph-");
  const toClose: Array<{ close(): Promise<void> }> = [];
  afterEach(async () => {
    for (const closable of toClose.splice(0).reverse()) await closable.close();
  });

  async function openSynced(path = ":memory:") {
    const store = new EmbeddedStore({ path });
    toClose.push(store);
    const synced = await SyncedStore.open({ store, subjectId: "trip" });
    toClose.push(synced);
    return { store, synced };
  }

  it("InMemoryStore loses one of two parallel writes to the same key", async () => {
    const store = new InMemoryStore();
    const result = await twoParallelWriters(store).invoke({});
    expect([...result.ran].sort()).toEqual(["flights", "hotels"]);

    const trip = await store.get(["plan"], "trip");
    // Last write wins: exactly one node's value survives, the other's is gone.
    expect([flights, hotels]).toContainEqual(trip?.value);
    const bookings = trip?.value.bookings as string[];
    expect(bookings).toHaveLength(1);
  });

  it("SyncedStore keeps both nodes' list items and escalates the scalar conflict, naming both", async () => {
    const { synced } = await openSynced();
    const result = await twoParallelWriters(synced).invoke({});
    expect([...result.ran].sort()).toEqual(["flights", "hotels"]);

    const trip = await synced.get(["plan"], "trip");
    expect([...(trip!.value.bookings as string[])].sort()).toEqual(["flight LH123", "hotel Adlon"]);

    const budget: unknown = trip?.value.budget;
    expect(budget).toBeInstanceOf(Disputed);
    const contenders = (budget as Disputed).contenders.map(({ agentId, value }) => ({
      agentId,
      value,
    }));
    expect(contenders).toEqual(
      expect.arrayContaining([
        { agentId: "flights", value: 900 },
        { agentId: "hotels", value: 1200 },
      ]),
    );

    const escalations = await synced.escalations();
    expect(escalations).toHaveLength(1);
    expect(escalations[0]?.contenders.map((contender) => contender.agentId).sort()).toEqual([
      "flights",
      "hotels",
    ]);
  });

  it("persists the merged item for a store opened later on the same database", async () => {
    const path = join(tempDir(), "graph.db");
    const first = await openSynced(path);
    await twoParallelWriters(first.synced).invoke({});
    await first.synced.close();

    const later = await openSynced(path);
    const trip = await later.synced.get(["plan"], "trip");
    expect([...(trip!.value.bookings as string[])].sort()).toEqual(["flight LH123", "hotel Adlon"]);
    expect(trip?.value.budget).toBeInstanceOf(Disputed);
    expect(await later.synced.listNamespaces()).toEqual([["plan"]]);
    expect((await later.synced.search(["plan"])).map((item) => item.key)).toEqual(["trip"]);
  });

  it("answers get, search and listNamespaces through config.store like any BaseStore", async () => {
    const { synced } = await openSynced();
    await synced.put(["users", "ada"], "prefs", { theme: "dark", tags: ["a"] });
    await synced.put(["users", "bob"], "prefs", { theme: "light" });

    expect((await synced.get(["users", "ada"], "prefs"))?.value).toEqual({
      theme: "dark",
      tags: ["a"],
    });
    expect(await synced.get(["users", "ada"], "missing")).toBeNull();
    expect(
      (await synced.search(["users"], { filter: { theme: "light" } })).map(
        (item) => item.namespace,
      ),
    ).toEqual([["users", "bob"]]);
    expect(await synced.listNamespaces({ prefix: ["users"], maxDepth: 1 })).toEqual([["users"]]);
    await expect(synced.delete(["users", "ada"], "prefs")).rejects.toThrow(/cannot delete/);
  });
});
