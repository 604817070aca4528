import { isOn, type RunAblation, type UnstampedEvent } from "../../../agents/agent-runtime.js";
import type { KnownDecision, KnownDispute } from "../../../agents/brain.js";
import { type Authority, compareAuthority, defaultAuthority } from "../../../context/authority.js";
import type { ContextStore, Memory } from "../../../context/context-store.js";
import { listOnTargets } from "../../../context/reads-by-target.js";
import type { ContextRead, MemoryDispute, SharedContext } from "../../../context/shared-context.js";
import type { KnownState } from "../../../coordination/coordination.js";
import type { Escalation } from "../../../crdt/escalation.js";
import type { SharedState } from "../../../crdt/shared-state.js";
import { decisionIdsOf, decisionLines, disputeLines } from "../read-event.js";
import { estimateTokens } from "../read-tokens.js";
import { bearingOn, moduleOfTask } from "../task-modules.js";
import type { DecisionIndex } from "./decision-index.js";

/** The shared-state namespace holding one register per module: who builds it. */
export const modulesNamespace = "modules";
/** A claim's value in the modules register. */
export const claimedPrefix = "claimed-by:";

/** What {@link readContext} needs besides the agent and the task. */
export interface ReadContextOptions {
  context: SharedContext;
  /** The store and subject the context reads: the exact read of the task's modules' decisions. */
  store: Pick<ContextStore, "listMemories">;
  subjectId: string;
  /** Module -> the modules it depends on. @default none */
  dependsOn?: ReadonlyMap<string, readonly string[]>;
  state: SharedState;
  index: DecisionIndex;
  ablation: RunAblation;
  /** When the agent joined the run, in scenario milliseconds. */
  joinedAt: number;
  /** The context bundle's token budget (`maxTokens`). */
  budgetTokens: number;
  emit(event: UnstampedEvent): void;
  /** Announces an escalation once, whichever reader saw it first. */
  announce(escalation: Escalation): void;
}

export function stringOf(value: unknown): string {
  return typeof value === "string" ? value : JSON.stringify(value);
}

/** One dispute per target: a memory contradiction and a register escalation on it are one. */
function mergeDisputes(disputes: readonly KnownDispute[]): KnownDispute[] {
  const byTarget = new Map<string, KnownDispute>();
  for (const dispute of disputes) {
    const known = byTarget.get(dispute.target);
    if (known === undefined) {
      byTarget.set(dispute.target, { target: dispute.target, contenders: [...dispute.contenders] });
      continue;
    }
    for (const contender of dispute.contenders) {
      if (!known.contenders.some((other) => other.agentId === contender.agentId)) {
        known.contenders.push(contender);
      }
    }
  }
  return [...byTarget.values()];
}

function escalationDispute(escalation: Escalation): KnownDispute {
  return {
    target: escalation.key,
    contenders: escalation.contenders.map((contender) => ({
      agentId: contender.agentId,
      value: stringOf(contender.value),
    })),
  };
}

/**
 * The decisions that stand by authority: on each target, those of the highest class there. A
 * lower class never overrules a higher one, so a person's decision stands for the agents to act on
 * while an agent's contrary one waits, still shown as a dispute, for a person to settle.
 */
export function highestAuthority(decisions: readonly KnownDecision[]): KnownDecision[] {
  const best = new Map<string, Authority>();
  for (const decision of decisions) {
    const authority = decision.authority ?? defaultAuthority;
    const known = best.get(decision.target);
    if (known === undefined || compareAuthority(authority, known) > 0) {
      best.set(decision.target, authority);
    }
  }
  return decisions.filter(
    (decision) => (decision.authority ?? defaultAuthority) === best.get(decision.target),
  );
}

function memoryDispute(dispute: MemoryDispute, index: DecisionIndex): KnownDispute | undefined {
  // Only sides of the highest authority are open: the others cannot win (see highestAuthority).
  const sides = highestAuthority(index.decisionsIn(dispute.memories));
  if (sides.length < 2) return undefined;
  return {
    target: dispute.target,
    contenders: sides.map((side) => ({ agentId: side.by, value: side.value })),
  };
}

/**
 * Which of the decisions an agent may use, mechanism by mechanism: those made before it joined
 * reach it through `history for a late joiner`, the others through `read-before-act`. Switching
 * one off removes exactly its share.
 */
function usableDecisions(
  decisions: readonly KnownDecision[],
  options: ReadContextOptions,
): KnownDecision[] {
  const history = isOn(options.ablation, "history for a late joiner");
  const fresh = isOn(options.ablation, "read-before-act");
  return decisions.filter((decision) => ((decision.at ?? 0) < options.joinedAt ? history : fresh));
}

/** The kind of memory a decision compiles into. */
const decisionKind = "architectural_decision";

/**
 * The active decisions on the task's module (or one it depends on), all of them, read exactly by
 * target: the store answers from its index, however many decisions the subject holds, and only
 * for memories still active (a superseded decision is not returned). `beforeActing` lists every
 * active decision too; this read is the pipeline's own, by the names its plan bears on.
 */
async function decisionsAbout(task: string, options: ReadContextOptions): Promise<Memory[]> {
  const module = moduleOfTask(task);
  if (module === undefined) return [];
  const names = bearingOn(module, options.dependsOn ?? new Map());
  const found = await listOnTargets(options.store, options.subjectId, names, {
    kind: decisionKind,
  });
  return found.filter((memory) => names.has(options.index.decisionOf(memory)?.target ?? ""));
}

/**
 * Read-before-act on the shared context: `beforeActing` ranked for the task within the token
 * budget, turned into what the agent's brain works with (decisions, open disputes, claims). The
 * decisions that bear on the task's module are looked up by name besides (never silently lost),
 * and the read says how many of the run's decisions it left out.
 */
export async function readContext(
  agentId: string,
  task: string,
  options: ReadContextOptions,
): Promise<{ known: KnownState; raw: ContextRead }> {
  const { context, state, index, ablation } = options;
  const bounded = isOn(ablation, "bounded context");
  const raw = await context.beforeActing(agentId, task, {
    // Unbounded (the store's largest budget): every memory, as an inbox holds every message.
    maxTokens: bounded ? options.budgetTokens : 128_000,
  });
  const about = await decisionsAbout(task, options);
  // What the agent reads: the decisions the ranking put in the bundle, the newest on each target
  // the task names, and (exactly, by target) every one on the task's modules. The others are
  // counted as left out, never silently dropped: `raw.decisions` has them all.
  const ranked = raw.bundle.facts.filter((memory) => memory.kind === decisionKind);
  const decisionMemories = [
    ...new Map(
      [...ranked, ...raw.namedDecisions, ...about].map((memory) => [memory.id, memory]),
    ).values(),
  ];
  const decisions = highestAuthority(usableDecisions(index.decisionsIn(decisionMemories), options));
  for (const escalation of raw.disputes) options.announce(escalation);
  const disputes = isOn(ablation, "dispute surfaced")
    ? mergeDisputes([
        ...raw.contradictions
          .map((dispute) => memoryDispute(dispute, index))
          .filter((dispute): dispute is KnownDispute => dispute !== undefined),
        ...raw.disputes.map(escalationDispute),
      ])
    : [];
  const claims: Record<string, string> = {};
  if (isOn(ablation, "read-before-act")) {
    for (const [module, value] of Object.entries(state.list(modulesNamespace))) {
      if (typeof value === "string" && value.startsWith(claimedPrefix)) {
        claims[module] = value.slice(claimedPrefix.length);
      }
    }
  }
  // What the agent must read: the text (the bundle and the named decisions, which the text holds),
  // plus each decision on its modules that the text does not show.
  const inBundle = new Set([...raw.bundle.facts, ...raw.namedDecisions].map((memory) => memory.id));
  const extra = decisionMemories.filter((memory) => !inBundle.has(memory.id));
  const tokens = estimateTokens(
    [raw.assembledContext, ...extra.map((memory) => memory.content)].join("\n"),
  );
  options.emit({
    type: "context-read",
    agentId,
    task,
    memoryIds: [...new Set([...raw.bundle.facts, ...decisionMemories].map((memory) => memory.id))],
    decisions: decisionLines(decisions),
    decisionIds: decisionIdsOf(decisions),
    disputes: disputeLines(disputes),
    tokens,
    decisionsLeftOut: Math.max(0, index.size - index.decisionsIn(decisionMemories).length),
  });
  return { known: { decisions, disputes, claims, tokens }, raw };
}
