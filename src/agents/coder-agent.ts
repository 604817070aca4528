import type { InvalidationNotice, KnownState } from "../scenario/pipelines/coordination.js";
import type { AgentRuntime } from "./agent-runtime.js";

const nothingKnown: KnownState = { decisions: [], disputes: [], claims: {} };

/** Thrown into a build's sleep when the build is cut short. */
class BuildCancelled extends Error {
  constructor(readonly notice: InvalidationNotice) {
    super(notice.reason);
  }
}

/**
 * A Coder: plans its modules from its slice, then for each one reads what is known, lets its
 * brain choose, claims the module and builds it, watching for anything that invalidates the
 * build in flight.
 */
export async function runCoder(runtime: AgentRuntime): Promise<void> {
  const { agent, brain, coordination, scenario, clock } = runtime;
  const blind = runtime.ablation.coderSkipsContextRead === true;
  const read = (task: string) =>
    blind ? Promise.resolve(nothingKnown) : coordination.read(agent.id, task);

  runtime.emit({ type: "agent-start", agentId: agent.id, taskSlice: runtime.slice });
  await read(runtime.slice);
  runtime.emit({ type: "agent-log", agentId: agent.id, text: "Planning modules from the task…" });
  await runtime.think();
  const modules = await clock.track(
    brain.planModules(
      {
        agentId: agent.id,
        slice: runtime.slice,
        inventory: scenario.inventory,
        ...(agent.modules ? { intended: agent.modules } : {}),
      },
      { signal: runtime.signal },
    ),
  );
  runtime.emit({ type: "agent-log", agentId: agent.id, text: `Plan: ${modules.join(", ")}` });

  for (const module of modules) {
    // Read, think it over, then act on what was read: a write that lands while the Coder thinks
    // is unknown to it, exactly as for an agent in another process.
    const known = await read(`Build module ${module}`);
    await runtime.think();
    const choice = await clock.track(
      brain.chooseModuleStep(
        {
          agentId: agent.id,
          module,
          decisions: known.decisions,
          disputes: known.disputes,
          ...(known.claims[module] !== undefined ? { claimedBy: known.claims[module] } : {}),
        },
        { signal: runtime.signal },
      ),
    );
    if (choice.action === "skip") {
      runtime.emit({
        type: "module-skip",
        agentId: agent.id,
        module,
        reason: choice.reason,
        causedBy: choice.causedBy,
      });
      continue;
    }
    if (!blind) {
      const claim = await coordination.claim(agent.id, module);
      if (!claim.granted) {
        runtime.emit({
          type: "module-skip",
          agentId: agent.id,
          module,
          reason: claim.reason,
          causedBy: claim.causedBy,
        });
        continue;
      }
    }
    await build(runtime, module, blind);
  }
  runtime.emit({ type: "agent-end", agentId: agent.id });
}

async function build(runtime: AgentRuntime, module: string, blind: boolean): Promise<void> {
  const { agent, coordination, scenario, clock } = runtime;
  const estimatedMs = runtime.duration(
    scenario.timings.moduleMsByName[module] ?? scenario.timings.moduleMs,
  );
  const tokensPerMs = scenario.costs.tokensPerModule / estimatedMs;
  const controller = new AbortController();
  const stopWatching = blind
    ? () => undefined
    : coordination.watchModule(agent.id, module, (notice) =>
        controller.abort(new BuildCancelled(notice)),
      );
  const startedAt = clock.now();
  runtime.emit({ type: "module-start", agentId: agent.id, module, estimatedMs });
  try {
    await clock.sleep(estimatedMs, AbortSignal.any([controller.signal, runtime.signal]));
  } catch (error) {
    if (!(error instanceof BuildCancelled)) throw error;
    const msSpent = Math.round(clock.now() - startedAt);
    runtime.emit({
      type: "module-cancel",
      agentId: agent.id,
      module,
      reason: error.notice.reason,
      causedBy: error.notice.by,
      tokensSpent: Math.round(tokensPerMs * msSpent),
      msSpent,
    });
    return;
  } finally {
    stopWatching();
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
