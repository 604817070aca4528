import type { InvalidationNotice, KnownState } from "../coordination/coordination.js";
import type { Mechanism } from "../coordination/run-events.js";
import { AgentCrash, type AgentRuntime } from "./agent-runtime.js";
import { mechanismOfSkip } from "./attribute-skip.js";
import type { ModuleStepChoice } from "./brain.js";
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
export async function runCoder(
  runtime: AgentRuntime,
  options: { joinedAt?: number } = {},
): Promise<void> {
  const { agent, brain, coordination, scenario } = runtime;
  const read = (task: string) => coordination.read(agent.id, task);
  // A restarted Coder joined again when it restarted: what came before is history to it.
  const joinedAt = options.joinedAt ?? agent.startAtMs;

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
  const described = describePlan(modules, {
    slice: runtime.slice,
    inventory: scenario.inventory,
    intended: agent.modules,
    brainName: brain.name,
  });
  runtime.emit({ type: "agent-log", agentId: agent.id, text: described, plan: modules });

  // The plan grows when a replacement moves work to a new module.
  const plan = [...modules];
  const revisit: string[] = [];
  for (let index = 0; index < plan.length; index += 1) {
    const module = plan[index] as string;
    const outcome = await workOn(runtime, module, joinedAt);
    if (outcome.moveTo !== undefined && !plan.includes(outcome.moveTo)) {
      plan.push(outcome.moveTo);
      runtime.emit({
        type: "agent-log",
        agentId: agent.id,
        text: `Plan: ${plan.join(", ")} (${module} replaced by ${outcome.moveTo})`,
        plan: [...plan],
      });
    }
    if (outcome.stoppedByDecision && outcome.moveTo === undefined) revisit.push(module);
  }
  await pickBackUp(runtime, revisit, { joinedAt, plan });
  runtime.emit({ type: "agent-end", agentId: agent.id });
}

/** How many thinking steps a Coder waits for a held module's dispute to be settled. */
const holdPatience = 3;

/**
 * Settles once every Planner has published its decisions: the plan is final then (only the
 * lead's rulings can follow). Rejects when the run stops first.
 */
async function plannersOut(runtime: AgentRuntime): Promise<void> {
  const { signal } = runtime;
  signal.throwIfAborted();
  let stop: () => void = () => undefined;
  const stopped = new Promise<never>((_, reject) => {
    stop = () => reject(signal.reason);
    signal.addEventListener("abort", stop, { once: true });
  });
  try {
    await Promise.race([runtime.plannersDecided, stopped]);
  } finally {
    signal.removeEventListener("abort", stop);
  }
}

/** What a Coder reads and chooses about a module once the decisions on it are settled. */
interface SettledRead {
  known: KnownState;
  choice: ModuleStepChoice;
}

/**
 * Waits for the decisions on a held or stopped module to settle: every Planner has published,
 * then it re-reads each thinking step while a dispute on the module (or one it depends on) is
 * still open. Undefined when the dispute is still open after `holdPatience` steps.
 */
async function untilSettled(
  runtime: AgentRuntime,
  module: string,
): Promise<SettledRead | undefined> {
  await plannersOut(runtime);
  const bearing = new Set([module, ...dependenciesOf(runtime, module)]);
  for (let attempt = 0; ; attempt += 1) {
    const known = await runtime.coordination.read(runtime.agent.id, `Build module ${module}`);
    if (!known.disputes.some((dispute) => bearing.has(dispute.target))) {
      return { known, choice: await choose(runtime, module, known) };
    }
    if (attempt === holdPatience) return undefined;
    await runtime.think();
  }
}

/**
 * Work skipped or cut short because of a decision is looked at once more when the plan is done,
 * after every Planner has published (a Coder whose plan ended early stays on for that: a reversal
 * that lands after its last module still reaches it). A decision read since that lets it build (a
 * reversal, a ruling) picks the work back up; a dispute still open holds it a few thinking steps
 * more, then it stays held and says so.
 */
async function pickBackUp(
  runtime: AgentRuntime,
  modules: readonly string[],
  { joinedAt, plan }: { joinedAt: number; plan: string[] },
): Promise<void> {
  if (modules.length > 0) {
    runtime.emit({
      type: "agent-log",
      agentId: runtime.agent.id,
      text: `Plan done; looking again at ${modules.join(", ")} once every Planner has decided.`,
    });
  }
  for (const module of modules) {
    const settled = await untilSettled(runtime, module);
    if (settled === undefined) {
      runtime.emit({
        type: "agent-log",
        agentId: runtime.agent.id,
        text: `Still holding ${module}: the dispute on it is not settled.`,
      });
      continue;
    }
    // Picked back up on a decision read since (a reversal, a ruling), never on silence: a read
    // that shows nothing on the module is no evidence that what stopped it was overruled.
    const { choice } = settled;
    if (choice.action === "skip" && choice.moveTo !== undefined) {
      // Cut short by a replacement: the work moves there, whichever way the news arrived.
      await moveTo(runtime, { from: module, to: choice.moveTo, plan, joinedAt });
      continue;
    }
    const bearing = new Set([module, ...dependenciesOf(runtime, module)]);
    const decided = settled.known.decisions.some((decision) => bearing.has(decision.target));
    if (choice.action === "build" && decided) {
      runtime.emit({
        type: "agent-log",
        agentId: runtime.agent.id,
        text: `Picking ${module} back up: the decision that stopped it no longer stands.`,
      });
      await workOn(runtime, module, joinedAt);
    }
  }
}

/** Work moved to a replacement after the plan was done: said, then built (once). */
async function moveTo(
  runtime: AgentRuntime,
  move: { from: string; to: string; plan: string[]; joinedAt: number },
): Promise<void> {
  if (move.plan.includes(move.to)) return;
  move.plan.push(move.to);
  const text = `Plan: ${move.plan.join(", ")} (${move.from} replaced by ${move.to})`;
  runtime.emit({ type: "agent-log", agentId: runtime.agent.id, text, plan: [...move.plan] });
  await workOn(runtime, move.to, move.joinedAt);
}

/** What one pass over a module ended in. */
interface ModuleOutcome {
  /** Skipped or cut short because of a decision or a dispute (not a claim). */
  stoppedByDecision: boolean;
  moveTo?: string;
}

function dependenciesOf(runtime: AgentRuntime, module: string): string[] {
  const dependsOn = runtime.scenario.dependsOn ?? {};
  const seen = new Set<string>([module]);
  const queue = [...(Object.hasOwn(dependsOn, module) ? (dependsOn[module] ?? []) : [])];
  while (queue.length > 0) {
    const name = queue.shift() as string;
    if (seen.has(name)) continue;
    seen.add(name);
    queue.push(...(Object.hasOwn(dependsOn, name) ? (dependsOn[name] ?? []) : []));
  }
  seen.delete(module);
  return [...seen];
}

async function choose(
  runtime: AgentRuntime,
  module: string,
  known: Awaited<ReturnType<AgentRuntime["coordination"]["read"]>>,
) {
  const dependsOn = dependenciesOf(runtime, module);
  return runtime.consult(
    runtime.brain.chooseModuleStep(
      {
        agentId: runtime.agent.id,
        module,
        decisions: known.decisions,
        disputes: known.disputes,
        ...(known.claims[module] !== undefined ? { claimedBy: known.claims[module] } : {}),
        ...(dependsOn.length > 0 ? { dependsOn } : {}),
      },
      { signal: runtime.signal, onUsage: runtime.spendThinking },
    ),
  );
}

/**
 * The watch on one module's work: each notice aborts the current stretch of work (a build that
 * resumes after a hold gets a fresh stretch), and the first one is kept for the checks before
 * the build starts.
 */
class ModuleWatch {
  #controller = new AbortController();
  #first: InvalidationNotice | undefined;

  receive(notice: InvalidationNotice): void {
    this.#first ??= notice;
    this.#controller.abort(new BuildCancelled(notice));
  }

  /** The first notice received, if any. */
  get news(): InvalidationNotice | undefined {
    return this.#first;
  }

  /** A signal for the next stretch of work, aborted by the next notice. */
  stretch(): AbortSignal {
    if (this.#controller.signal.aborted) this.#controller = new AbortController();
    return this.#controller.signal;
  }
}

/**
 * One module: read, think it over, then act on what was read (skip, or claim and build). From
 * the read until the build ends the work is watched: news that lands while it thinks stops it
 * before it starts, news that lands mid-build cuts the build short (or holds it, when the news is
 * one side of a dispute).
 */
async function workOn(
  runtime: AgentRuntime,
  module: string,
  joinedAt: number,
): Promise<ModuleOutcome> {
  const { agent, coordination } = runtime;
  const watch = new ModuleWatch();
  const stopWatching = coordination.watchModule(agent.id, module, (received) =>
    watch.receive(received),
  );
  const skip = (reason: string, causedBy: string | null, mechanism: Mechanism | null) =>
    runtime.emit({ type: "module-skip", agentId: agent.id, module, reason, causedBy, mechanism });
  try {
    const known = await coordination.read(agent.id, `Build module ${module}`);
    if (known.ownBuilds?.includes(module) === true) {
      // Restarted: it no longer remembers building it; what it read back says it did.
      runtime.emit({
        type: "agent-log",
        agentId: agent.id,
        text: `${module}: built before the restart (read back), nothing to do.`,
      });
      return { stoppedByDecision: false };
    }
    await runtime.think();
    const choice = await choose(runtime, module, known);
    const landedWhileThinking = watch.news;
    if (landedWhileThinking !== undefined) {
      skip(landedWhileThinking.reason, landedWhileThinking.by, "mid-build invalidation");
      return { stoppedByDecision: true };
    }
    if (choice.action === "skip") {
      skip(choice.reason, choice.causedBy, mechanismOfSkip(known, module, choice, joinedAt));
      const byClaim = choice.causedBy !== null && known.claims[module] === choice.causedBy;
      return {
        stoppedByDecision: choice.causedBy !== null && !byClaim,
        ...(choice.moveTo !== undefined ? { moveTo: choice.moveTo } : {}),
      };
    }
    const claim = await coordination.claim(agent.id, module);
    if (!claim.granted) {
      skip(claim.reason, claim.causedBy, claim.causedBy === null ? null : "atomic claim");
      return { stoppedByDecision: false };
    }
    // News that landed while the claim was settled stops the work before it starts.
    const pending = watch.news;
    if (pending !== undefined) {
      skip(pending.reason, pending.by, "mid-build invalidation");
      return { stoppedByDecision: true };
    }
    const finished = await build(runtime, module, watch);
    return { stoppedByDecision: !finished };
  } finally {
    stopWatching();
  }
}

/** One build's progress, and how to cut it short. */
interface BuildProgress {
  readonly estimatedMs: number;
  /** Scenario ms of the build done so far (kept while held). */
  msDone: number;
}

function cutShort(
  runtime: AgentRuntime,
  module: string,
  progress: BuildProgress,
  stop: { reason: string; causedBy: string | null; mechanism?: Mechanism },
): false {
  const { tokensPerModule } = runtime.scenario.costs;
  runtime.emit({
    type: "module-cancel",
    agentId: runtime.agent.id,
    module,
    ...stop,
    // A cancelled build wastes at most what the whole module costs.
    tokensSpent: Math.min(
      tokensPerModule,
      Math.round((tokensPerModule / progress.estimatedMs) * progress.msDone),
    ),
    msSpent: progress.msDone,
  });
  return false;
}

/**
 * Builds `module`; false when the build was cut short. A notice that is one side of a dispute
 * holds the build instead: it keeps its progress, waits for the ruling, and resumes where it
 * stopped (or stops, when the ruling retires the module or nobody rules). A crash loses the work
 * in flight (cut short, caused by no decision).
 */
async function build(runtime: AgentRuntime, module: string, watch: ModuleWatch): Promise<boolean> {
  const { agent, coordination, scenario } = runtime;
  const progress: BuildProgress = {
    estimatedMs: runtime.duration(
      scenario.timings.moduleMsByName[module] ?? scenario.timings.moduleMs,
    ),
    msDone: 0,
  };
  runtime.emit({
    type: "module-start",
    agentId: agent.id,
    module,
    estimatedMs: progress.estimatedMs,
  });
  try {
    const finished = await buildUntilDone(runtime, module, watch, progress);
    if (!finished) return false;
  } catch (error) {
    if (error instanceof AgentCrash) {
      cutShort(runtime, module, progress, {
        reason: "crashed mid-build: the work in flight is lost",
        causedBy: null,
      });
    }
    throw error;
  }
  const result = {
    module,
    agentId: agent.id,
    tokens: scenario.costs.tokensPerModule,
    ms: progress.estimatedMs,
  };
  runtime.emit({ type: "module-end", ...result });
  await coordination.reportResult(agent.id, result);
  return true;
}

/** The build's stretches of work, with the holds between them; false when it was cut short. */
async function buildUntilDone(
  runtime: AgentRuntime,
  module: string,
  watch: ModuleWatch,
  progress: BuildProgress,
): Promise<boolean> {
  const { clock } = runtime;
  const invalidated = "mid-build invalidation" as const;
  for (;;) {
    const stretchStart = clock.now();
    try {
      await clock.sleep(
        progress.estimatedMs - progress.msDone,
        AbortSignal.any([watch.stretch(), runtime.signal]),
      );
      return true;
    } catch (error) {
      progress.msDone = Math.min(
        progress.estimatedMs,
        progress.msDone + Math.round(clock.now() - stretchStart),
      );
      if (!(error instanceof BuildCancelled)) throw error;
      const { notice } = error;
      if (notice.disputed !== true) {
        return cutShort(runtime, module, progress, {
          reason: notice.reason,
          causedBy: notice.by,
          mechanism: invalidated,
        });
      }
      runtime.emit({
        type: "module-hold",
        agentId: runtime.agent.id,
        module,
        reason: `${notice.reason} (in dispute: held until the lead rules)`,
        causedBy: notice.by,
        msDone: progress.msDone,
        mechanism: "dispute surfaced",
      });
      const settled = await untilSettled(runtime, module);
      if (settled === undefined || settled.choice.action === "skip") {
        return cutShort(runtime, module, progress, {
          reason:
            settled?.choice.action === "skip"
              ? settled.choice.reason
              : `held on ${notice.reason}; the dispute was never settled`,
          causedBy: settled?.choice.action === "skip" ? settled.choice.causedBy : notice.by,
          mechanism: invalidated,
        });
      }
      runtime.emit({
        type: "module-resume",
        agentId: runtime.agent.id,
        module,
        reason: "the ruling keeps it",
        remainingMs: progress.estimatedMs - progress.msDone,
      });
    }
  }
}
