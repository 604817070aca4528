import { Annotation, type BaseStore, END, START, StateGraph } from "@langchain/langgraph";

/** The tools every shared-context client is offered (MCP, the AI SDK tools), sorted by name. */
export const sharedContextToolNames = [
  "check_shared_decisions",
  "get_decision_history",
  "get_state",
  "get_timeline",
  "publish_decision",
  "put_state",
  "resolve_escalation",
  "retract_decision",
] as const;

/** The MCP server's tools: the shared-context tools and the promotion of a run into a project. */
export const mcpToolNames = [...sharedContextToolNames, "promote_decisions"].sort();

/**
 * Runs a LangGraph graph whose two parallel nodes, `flights` and `hotels`, each put a different
 * budget (900 and 1200) into `["plan"]/"trip"` through `store`: on a synced store, a dispute.
 */
export async function disputeTripBudget(store: BaseStore): Promise<void> {
  await new StateGraph(Annotation.Root({}))
    .addNode("flights", async (_state, config) => {
      await config.store?.put(["plan"], "trip", { budget: 900 });
      return {};
    })
    .addNode("hotels", async (_state, config) => {
      await config.store?.put(["plan"], "trip", { budget: 1200 });
      return {};
    })
    .addEdge(START, "flights")
    .addEdge(START, "hotels")
    .addEdge("flights", END)
    .addEdge("hotels", END)
    .compile({ store })
    .invoke({});
}
