import type { ArbitrationRequest } from "../coordination/coordination.js";
import type { PlannedDecision } from "../coordination/scenario-schema.js";
import type { AgentRuntime } from "./agent-runtime.js";
import type { KnownDecision, KnownDispute } from "./brain.js";
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
      ...(decision.authority !== undefined ? { authority: decision.authority } : {}),
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
  if (leadOf(scenario) === agent.id) {
    const order = scenario.agents.map((candidate) => candidate.id);
    await Promise.all([
      coordination.arbitrate(
        agent.id,
        (request) => chooseEscalationWinner(request, order),
        runtime.workersDone,
      ),
      settleDisputes(runtime, order),
    ]);
  }
  runtime.emit({ type: "agent-end", agentId: agent.id });
}

/** The planner who settles claims and disputes: the scenario's `lead`, else the first planner. */
export function leadOf(scenario: AgentRuntime["scenario"]): string | undefined {
  if (scenario.lead === null) return undefined;
  return scenario.lead ?? scenario.agents.find((candidate) => candidate.role === "planner")?.id;
}

/**
 * The lead's rule for Planner-versus-Planner disputes: the decision of the planner listed first
 * stands (the team's order is its seniority; which of two planners thinking at once wrote first is
 * timing jitter, not merit). The ruling is a decision of its own, made after reading both sides,
 * so it overrules both.
 */
export function chooseDisputeRuling(
  dispute: KnownDispute,
  decisions: readonly KnownDecision[],
  agentOrder: readonly string[],
): KnownDecision | undefined {
  const sides = decisions.filter(
    (decision) =>
      decision.target === dispute.target &&
      dispute.contenders.some((contender) => contender.agentId === decision.by),
  );
  const rank = (agentId: string) => agentOrder.indexOf(agentId);
  return [...sides].sort((a, b) => rank(a.by) - rank(b.by) || (a.at ?? 0) - (b.at ?? 0))[0];
}

/** Whether `agentId` is one side of `dispute`: it may not rule on it. */
export function isParty(dispute: KnownDispute, agentId: string): boolean {
  return dispute.contenders.some((contender) => contender.agentId === agentId);
}

/**
 * The lead's duty for disputes: once every Planner has published (disputes are between Planners'
 * decisions, so none can arise later), it reads what is open, once, and rules on each
 * Planner-versus-Planner dispute it is not a party to (a mode that surfaces disputes shows them;
 * one that does not leaves the lead nothing to rule on).
 */
async function settleDisputes(runtime: AgentRuntime, order: readonly string[]): Promise<void> {
  const { agent, coordination, scenario } = runtime;
  // With one Planner there is no Planner to dispute with: nothing to read for.
  if (scenario.agents.filter((candidate) => candidate.role === "planner").length < 2) return;
  const ready = await Promise.race([
    runtime.plannersDecided.then(() => true),
    runtime.workersDone.then(() => false),
  ]);
  if (!ready) return;
  const known = await coordination.read(agent.id, "Settle the open disputes");
  for (const dispute of known.disputes) {
    if (isParty(dispute, agent.id)) {
      // A party never rules its own dispute: with no lead outside it, it stays open for a person.
      runtime.emit({
        type: "agent-log",
        agentId: agent.id,
        text: `The dispute on ${dispute.target} is mine too: I do not rule on it; it stays open for a person to decide.`,
      });
      continue;
    }
    const winner = chooseDisputeRuling(dispute, known.decisions, order);
    if (winner === undefined || (winner.value !== "deprecate" && winner.value !== "keep")) continue;
    const sides = dispute.contenders.map((contender) => contender.agentId).join(" and ");
    const ruling = {
      target: dispute.target,
      value: winner.value,
      content: `Ruling on ${dispute.target}: ${winner.value} (${winner.by}'s decision stands: the lead rules for the planner listed first); settles the dispute between ${sides}.`,
    } as const;
    const decisionId = `${agent.id}#ruling-${dispute.target}`;
    runtime.emit({
      type: "decision-write",
      agentId: agent.id,
      kind: "architectural_decision",
      target: ruling.target,
      value: ruling.value,
      content: ruling.content,
      decisionId,
    });
    await coordination.publishDecision(agent.id, ruling, decisionId);
  }
}
