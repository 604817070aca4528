import type { AgentRuntime } from "./agent-runtime.js";

/**
 * The Reviewer: waits for the others, collects every decision and every build it can see, and
 * reports work that contradicts a decision or duplicates other work. A collision found here is
 * found after the fact: the compute is already spent.
 */
export async function runReviewer(runtime: AgentRuntime): Promise<void> {
  const { agent, brain, coordination, scenario, clock } = runtime;
  runtime.emit({ type: "agent-start", agentId: agent.id, taskSlice: runtime.slice });
  await runtime.workersDone;
  runtime.emit({ type: "agent-log", agentId: agent.id, text: "Reviewing the finished work…" });
  const view = await coordination.collectForReview(agent.id);
  await clock.sleep(runtime.duration(scenario.timings.reviewMs), runtime.signal);
  runtime.spendThinking(scenario.costs.tokensPerReview);
  const findings = await clock.track(
    brain.review(
      { agentId: agent.id, decisions: view.decisions, results: view.results },
      { signal: runtime.signal },
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
    });
  }
  if (findings.length === 0) {
    runtime.emit({
      type: "agent-log",
      agentId: agent.id,
      text: "No conflicts: the work matches the decisions.",
    });
  }
  runtime.emit({ type: "agent-end", agentId: agent.id });
}
