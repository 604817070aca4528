/**
 * Two parallel LangGraph.js nodes write the same store item. With LangGraph's InMemoryStore one
 * write is lost; with shared-ctx's SyncedStore both survive and the scalar conflict is escalated.
 *
 *   npx tsx examples/langgraph-parallel-nodes.ts [database-file]
 *
 * With a database file, run it again: both bookings stay however often it runs.
 * In your own project, import from "shared-ctx" and "shared-ctx/langgraph" instead of "../src/...".
 */
import {
  Annotation,
  type BaseStore,
  END,
  InMemoryStore,
  type LangGraphRunnableConfig,
  START,
  StateGraph,
} from "@langchain/langgraph";
import { EmbeddedStore } from "../src/index.js";
import { SyncedStore } from "../src/langgraph.js";

const State = Annotation.Root({
  done: Annotation<string[]>({ reducer: (left, right) => left.concat(right), default: () => [] }),
});

/** A node that reads the trip, thinks, then writes its part of it. */
function planner(part: Record<string, unknown>) {
  return async (_state: unknown, config: LangGraphRunnableConfig) => {
    const store = config.store; // SyncedStore attributes each write to the node making it
    if (!store) throw new Error("compile the graph with a store");
    await store.get(["trips"], "berlin");
    await new Promise((resolve) => setTimeout(resolve, 10)); // "thinking": both nodes read first
    await store.put(["trips"], "berlin", part);
    return { done: [String(config.metadata?.langgraph_node)] };
  };
}

function buildGraph(store: BaseStore) {
  return new StateGraph(State)
    .addNode("flights", planner({ bookings: ["flight LH123"], budget: 900 }))
    .addNode("hotels", planner({ bookings: ["hotel Adlon"], budget: 1200 }))
    .addEdge(START, "flights")
    .addEdge(START, "hotels")
    .addEdge("flights", END)
    .addEdge("hotels", END)
    .compile({ store });
}

const inMemory = new InMemoryStore();
await buildGraph(inMemory).invoke({});
console.log("InMemoryStore:", JSON.stringify((await inMemory.get(["trips"], "berlin"))?.value));

const contextStore = new EmbeddedStore({ path: process.argv[2] ?? ":memory:" });
const synced = await SyncedStore.open({ store: contextStore, subjectId: "trip-berlin" });
await buildGraph(synced).invoke({});
const trip = await synced.get(["trips"], "berlin");
console.log("SyncedStore:  ", JSON.stringify(trip?.value));
for (const escalation of await synced.escalations()) {
  if (escalation.resolution) continue; // settled on an earlier run
  const sides = escalation.contenders.map((contender) => `${contender.agentId}=${contender.value}`);
  console.log(`escalated:     ${escalation.key}: ${sides.join(" vs ")}`);
  await synced.resolve(escalation.id, 1000, { by: "lead" });
}
console.log("resolved:     ", JSON.stringify((await synced.get(["trips"], "berlin"))?.value));

await synced.close();
await contextStore.close();
