import type { ArbitrationRequest } from "../coordination/coordination.js";
import type { PlannedDecision } from "../coordination/scenario-schema.js";
import type { AgentRuntime } from "./agent-runtime.js";
import { describeNothingFound } from "./offline-brain.js";

/**
 * Register values: the statewave pipeline's `modules` register holds claims only (decisions live
 * in the memories); a register that also holds a module's fate (older runs, other writers) uses
 * `deprecated-by:`, and the rule below still settles it.
 */
const deprecatedPrefix = "deprecated-by:";
const claimedPrefix = "claimed-by:";

/**
 * The lead's rule for an escalation it may settle. A deprecation beats a claim (the architecture
 * decides what gets built). Between claims, the earliest claim wins (its Coder already started),
 * then the Coder listed first. Planners that disagree with each other are left in dispute: the lead
 * may be one of them, so it must not silently win.
 */
export function chooseEscalationWinner(
  request: ArbitrationRequest,
  agentOrder: readonly string[],
): string | undefined {
  const claims = request.contenders.filter((contender) =>
    contender.value.startsWith(claimedPrefix),
  );
  const decisions = request.contenders.filter(
    (contender) => !contender.value.startsWith(claimedPrefix),
  );
  if (decisions.length > 1) return undefined;
  const decision = decisions[0];
  if (decision !== undefined) {
    return decision.value.startsWith(deprecatedPrefix) ? decision.value : undefined;
  }
  const rank = (agentId: string) => agentOrder.indexOf(agentId);
  const first = [...claims].sort((a, b) => a.at - b.at || rank(a.agentId) - rank(b.agentId))[0];
  return first?.value;
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
  const decisions = await runtime.consult(
    brain.decide(
      {
        agentId: agent.id,
        slice: runtime.slice,
        inventory: scenario.inventory,
        known: known.decisions,
        ...(intended ? { intended } : {}),
      },
      { signal: runtime.signal, onUsage: runtime.spendThinking },
    ),
  );
  for (const [index, decision] of decisions.entries()) {
    // The same event in every mode, emitted here so the pipelines differ only in how they publish.
    const decisionId = `${agent.id}#${index + 1}`;
    runtime.emit({
      type: "decision-write",
      agentId: agent.id,
      kind: "architectural_decision",
      target: decision.target,
      value: decision.value,
      content: decision.content,
      decisionId,
      ...(decision.by !== undefined ? { replacement: decision.by } : {}),
    });
    await coordination.publishDecision(agent.id, decision, decisionId);
  }
  if (decisions.length === 0) {
    runtime.emit({
      type: "agent-log",
      agentId: agent.id,
      text: describeNothingFound("decision", brain.name),
    });
  }
  runtime.decided();
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
