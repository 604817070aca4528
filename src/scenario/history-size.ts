import { type Scenario, scenarioSchema } from "./scenario-schema.js";

/**
 * A history of `decisions` decisions before a Coder joins (`bench scenarios --history`): the
 * Planner retires `ledger` first, then keeps `service-1`… one decision each; the Coder joins
 * after them all, with `ledger` and `invoices` to build. The decision that matters is the oldest:
 * the sweep measures what each mode delivers to the joiner as the history grows.
 */
export function historyScenario(decisions: number): Scenario {
  if (!Number.isInteger(decisions) || decisions < 1) {
    throw new RangeError(`a history is a whole number of decisions >= 1 (got ${decisions})`);
  }
  const kept = Array.from({ length: decisions - 1 }, (_, index) => ({
    target: `service-${index + 1}`,
    value: "keep",
    content: `Keep service-${index + 1} as it is.`,
  }));
  return scenarioSchema.parse({
    name: `history-x${decisions}`,
    title: `${decisions} decisions before a joiner`,
    task: "Review every service. Retire ledger. Build invoices.",
    agents: [
      {
        id: "planner",
        role: "planner",
        name: "Planner",
        color: "cyan",
        slice: "Review every service. Retire ledger.",
        decisions: [{ target: "ledger", value: "deprecate", content: "Retire ledger." }, ...kept],
      },
      {
        id: "coder",
        role: "coder",
        name: "Coder",
        color: "magenta",
        slice: "Build ledger and invoices.",
        startAtMs: 3000,
        modules: ["ledger", "invoices"],
      },
      { id: "reviewer", role: "reviewer", name: "Reviewer", color: "yellow" },
    ],
    inventory: ["ledger"],
    timings: { thinkMs: 1000, moduleMs: 2000, reviewMs: 500, jitterMs: 0 },
    costs: { tokensPerThink: 100, tokensPerModule: 1000, tokensPerReview: 100 },
  });
}
