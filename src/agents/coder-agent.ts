import type { InvalidationNotice } from "../coordination/coordination.js";
import type { Mechanism } from "../coordination/run-events.js";
import type { AgentRuntime } from "./agent-runtime.js";
import { mechanismOfSkip } from "./attribute-skip.js";
import { describePlan } from "./offline-brain.js";

/** Thrown into a build's sleep when the build is cut short. */
class BuildCancelled extends Error {
  constructor(readonly notice: InvalidationNotice) {
    super(notice.reason);
  }
}

/**
 * A Coder: plans its modules from its slice, then for each one reads what is known, lets its
 * brain choose, claims the module and builds it. From the read until the build ends it listens
 * for news that contradicts the work (a mode that can deliver it: the shared context); news that
 * lands while it thinks stops it before it starts, news that lands mid-build cuts the build short.
 * Every skip and cancel names the mechanism that caused it.
 */
export async function runCoder(runtime: AgentRuntime): Promise<void> {
  const { agent, brain, coordination, scenario } = runtime;
  const read = (task: string) => coordination.read(agent.id, task);
  const joinedAt = agent.startAtMs;

  runtime.emit({ type: "agent-start", agentId: agent.id, taskSlice: runtime.slice });
  await read(runtime.slice);
  runtime.emit({ type: "agent-log", agentId: agent.id, text: "Planning modules from the task…" });
  await runtime.think();
  const modules = await runtime.consult(
    brain.planModules(
      {
        agentId: agent.id,
        slice: runtime.slice,
        inventory: scenario.inventory,
        ...(agent.modules ? { intended: agent.modules } : {}),
      },
      { signal: runtime.signal, onUsage: runtime.spendThinking },
    ),
  );
  // Where each module came from (the task, an existing module it mentions), or plainly nothing.
  const plan = describePlan(modules, {
    slice: runtime.slice,
    inventory: scenario.inventory,
    intended: agent.modules,
    brainName: brain.name,
  });
  runtime.emit({ type: "agent-log", agentId: agent.id, text: plan, plan: modules });

  for (const module of modules) {
    const controller = new AbortController();
    let notice: InvalidationNotice | undefined;
    // Read through a function: the watch sets `notice` while this loop awaits.
    const news = (): InvalidationNotice | undefined => notice;
    const stopWatching = coordination.watchModule(agent.id, module, (received) => {
      notice ??= received;
      controller.abort(new BuildCancelled(received));
    });
    const skip = (reason: string, causedBy: string | null, mechanism: Mechanism | null) =>
      runtime.emit({ type: "module-skip", agentId: agent.id, module, reason, causedBy, mechanism });
    try {
      // Read, think it over, then act on what was read.
      const known = await read(`Build module ${module}`);
      await runtime.think();
      const choice = await runtime.consult(
        brain.chooseModuleStep(
          {
            agentId: agent.id,
            module,
            decisions: known.decisions,
            disputes: known.disputes,
            ...(known.claims[module] !== undefined ? { claimedBy: known.claims[module] } : {}),
          },
          { signal: runtime.signal, onUsage: runtime.spendThinking },
        ),
      );
      const landedWhileThinking = news();
      if (landedWhileThinking !== undefined) {
        skip(landedWhileThinking.reason, landedWhileThinking.by, "mid-build invalidation");
        continue;
      }
      if (choice.action === "skip") {
        skip(choice.reason, choice.causedBy, mechanismOfSkip(known, module, choice, joinedAt));
        continue;
      }
      const claim = await coordination.claim(agent.id, module);
      if (!claim.granted) {
        skip(claim.reason, claim.causedBy, claim.causedBy === null ? null : "atomic claim");
        continue;
      }
      // News that landed while the claim was settled stops the work before it starts.
      const pending = news();
      if (pending !== undefined) {
        skip(pending.reason, pending.by, "mid-build invalidation");
        continue;
      }
      await build(runtime, module, controller.signal);
    } finally {
      stopWatching();
    }
  }
  runtime.emit({ type: "agent-end", agentId: agent.id });
}

async function build(runtime: AgentRuntime, module: string, cancel: AbortSignal): Promise<void> {
  const { agent, coordination, scenario, clock } = runtime;
  const estimatedMs = runtime.duration(
    scenario.timings.moduleMsByName[module] ?? scenario.timings.moduleMs,
  );
  const tokensPerMs = scenario.costs.tokensPerModule / estimatedMs;
  const startedAt = clock.now();
  runtime.emit({ type: "module-start", agentId: agent.id, module, estimatedMs });
  try {
    await clock.sleep(estimatedMs, AbortSignal.any([cancel, runtime.signal]));
  } catch (error) {
    if (!(error instanceof BuildCancelled)) throw error;
    const msSpent = Math.min(estimatedMs, Math.round(clock.now() - startedAt));
    runtime.emit({
      type: "module-cancel",
      agentId: agent.id,
      module,
      reason: error.notice.reason,
      causedBy: error.notice.by,
      // A cancelled build wastes at most what the whole module costs.
      tokensSpent: Math.min(scenario.costs.tokensPerModule, Math.round(tokensPerMs * msSpent)),
      msSpent,
      mechanism: "mid-build invalidation",
    });
    return;
  }
  const result = {
    module,
    agentId: agent.id,
    tokens: scenario.costs.tokensPerModule,
    ms: estimatedMs,
  };
  runtime.emit({ type: "module-end", ...result });
  await coordination.reportResult(agent.id, result);
}
