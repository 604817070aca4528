import type { PlannedDecision } from "../scenario/scenario-schema.js";
import type { ArbitrationRequest } from "../scenario/pipelines/coordination.js";
import type { AgentRuntime } from "./agent-runtime.js";

/** Claim values in the shared state start with these (see the statewave pipeline). */
const deprecatedPrefix = "deprecated-by:";
const claimedPrefix = "claimed-by:";

/**
 * The lead's rule for an escalation it may settle: a deprecation beats a claim (the architecture
 * decides what gets built); between claims, the Coder listed first in the scenario builds it.
 * Disputes between planners are left open: the lead is a party, so it must not silently win.
 */
export function chooseEscalationWinner(
  request: ArbitrationRequest,
  agentOrder: readonly string[],
): string | undefined {
  const values = request.contenders.map((contender) => contender.value);
  const deprecation = values.find((value) => value.startsWith(deprecatedPrefix));
  if (deprecation !== undefined) return deprecation;
  if (!values.every((value) => value.startsWith(claimedPrefix))) return undefined;
  const rank = (value: string) => agentOrder.indexOf(value.slice(claimedPrefix.length));
  return [...values].sort((a, b) => rank(a) - rank(b))[0];
}

/**
 * A Planner: reads what is known, thinks, publishes its decisions, then (the first Planner only)
 * stays on duty to settle escalations until the workers are done.
 */
export async function runPlanner(runtime: AgentRuntime): Promise<void> {
  const { agent, brain, coordination, scenario } = runtime;
  runtime.emit({ type: "agent-start", agentId: agent.id, taskSlice: runtime.slice });
  const known = await coordination.read(agent.id, runtime.slice);
  runtime.emit({ type: "agent-log", agentId: agent.id, text: "Weighing the architecture…" });
  await runtime.think();
  const intended: readonly PlannedDecision[] | undefined = agent.decisions;
  const decisions = await runtime.clock.track(
    brain.decide(
      {
        agentId: agent.id,
        slice: runtime.slice,
        inventory: scenario.inventory,
        known: known.decisions,
        ...(intended ? { intended } : {}),
      },
      { signal: runtime.signal },
    ),
  );
  for (const decision of decisions) {
    await coordination.publishDecision(agent.id, decision);
  }
  if (decisions.length === 0) {
    runtime.emit({ type: "agent-log", agentId: agent.id, text: "No architectural change needed." });
  }
  const lead = scenario.agents.find((candidate) => candidate.role === "planner");
  if (lead?.id === agent.id) {
    const order = scenario.agents.map((candidate) => candidate.id);
    await coordination.arbitrate(
      agent.id,
      (request) => chooseEscalationWinner(request, order),
      runtime.workersDone,
    );
  }
  runtime.emit({ type: "agent-end", agentId: agent.id });
}
