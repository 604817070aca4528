import type { AgentRuntime } from "./agent-runtime.js";
import type { OpenDispute } from "./brain.js";

/** "Open dispute → legacy-cache: Planner A (deprecate) vs Planner B (keep); needs a decision". */
export function describeOpenDispute(
  dispute: OpenDispute,
  nameOf: (agentId: string) => string,
): string {
  const sides = dispute.contenders
    .map((contender) => `${nameOf(contender.agentId)} (${contender.value})`)
    .join(" vs ");
  return `Open dispute → ${dispute.target}: ${sides}; needs a decision`;
}

/**
 * What a review with no finding says. Zero work is not success: with nothing built there is
 * nothing to review, and work with no decision had nothing to contradict.
 */
function cleanReview(decisions: number, results: number): string {
  if (results === 0) {
    return decisions === 0
      ? "Nothing to review: no module was built and no decision was seen."
      : "Nothing to review: no module was built.";
  }
  return decisions === 0
    ? "No conflicts: no decision was made, so there was nothing for the work to contradict."
    : "No conflicts: the work matches the decisions.";
}

/**
 * The Reviewer: waits for the others, collects every decision and every build it can see, and
 * reports work that contradicts a decision or duplicates other work. A collision found here is
 * found after the fact: the compute is already spent. It also reports the disputes still open
 * (agents who decided differently and whom nobody settled): not collisions, since no work was
 * wasted, but the review must never say all is well while one is open.
 */
export async function runReviewer(runtime: AgentRuntime): Promise<void> {
  const { agent, brain, coordination, scenario, clock } = runtime;
  runtime.emit({ type: "agent-start", agentId: agent.id, taskSlice: runtime.slice });
  await runtime.workersDone;
  // A run stopped (Ctrl-C) ends its workers early: there is no finished work to review, and the
  // log must not say there is.
  runtime.signal.throwIfAborted();
  runtime.emit({ type: "agent-log", agentId: agent.id, text: "Reviewing the finished work…" });
  const view = await coordination.collectForReview(agent.id);
  await clock.sleep(runtime.duration(scenario.timings.reviewMs), runtime.signal);
  // A model reports its own tokens for the review (onUsage below); the offline brain costs the scenario's.
  if (brain.reproducible === true) runtime.spendThinking(scenario.costs.tokensPerReview);
  const { findings, openDisputes } = await runtime.consult(
    brain.review(
      {
        agentId: agent.id,
        decisions: view.decisions,
        results: view.results,
        disputes: view.disputes,
      },
      { signal: runtime.signal, onUsage: runtime.spendThinking },
    ),
  );
  for (const finding of findings) {
    runtime.emit({
      type: "collision",
      module: finding.module,
      detectedBy: agent.id,
      agents: finding.agents,
      description: finding.description,
      wastedTokens: finding.wasted.reduce((sum, build) => sum + build.tokens, 0),
      wastedMs: finding.wasted.reduce((sum, build) => sum + build.ms, 0),
      cause: runtime.attributeCollision(finding.module, finding.agents),
    });
  }
  const nameOf = (agentId: string) =>
    scenario.agents.find((candidate) => candidate.id === agentId)?.name ?? agentId;
  for (const dispute of openDisputes) {
    runtime.emit({
      type: "agent-log",
      agentId: agent.id,
      text: describeOpenDispute(dispute, nameOf),
      openDispute: { target: dispute.target, contenders: dispute.contenders },
    });
  }
  if (findings.length === 0) {
    runtime.emit({
      type: "agent-log",
      agentId: agent.id,
      text:
        openDisputes.length > 0
          ? `No collisions: no work was wasted, but ${
              openDisputes.length === 1 ? "1 dispute is" : `${openDisputes.length} disputes are`
            } still open.`
          : cleanReview(view.decisions.length, view.results.length),
    });
  }
  runtime.emit({ type: "agent-end", agentId: agent.id });
}
