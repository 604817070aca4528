import type { UnstampedEvent } from "../../../agents/agent-runtime.js";
import { chooseEscalationWinner } from "../../../agents/planner-agent.js";
import type { ClaimOutcome } from "../../../coordination/coordination.js";
import { Disputed } from "../../../crdt/disputed.js";
import type { Escalation } from "../../../crdt/escalation.js";
import type { SharedState } from "../../../crdt/shared-state.js";
import type { Clock } from "../../clock.js";
import { claimedPrefix, modulesNamespace } from "./read-context.js";

/** How many waits of `thinkMs / 4` a Coder gives an escalated claim to be settled before it gives up. */
const resolutionPatience = 12;

/** What {@link claimModule} needs. */
export interface AtomicClaimOptions {
  state: SharedState;
  clock: Clock;
  thinkMs: number;
  emit(event: UnstampedEvent): void;
  announce(escalation: Escalation): void;
  /** The team, in order: the tie-break between claims written at the same moment. */
  agentOrder: readonly string[];
}

function claimantOf(value: unknown): string | undefined {
  return typeof value === "string" && value.startsWith(claimedPrefix)
    ? value.slice(claimedPrefix.length)
    : undefined;
}

/** Waits (in scenario time) for the lead to settle an escalated claim; undefined when nobody does. */
async function awaitResolution(module: string, options: AtomicClaimOptions): Promise<unknown> {
  const { state, clock } = options;
  for (let attempt = 0; attempt < resolutionPatience; attempt += 1) {
    await clock.sleep(Math.max(1, Math.round(options.thinkMs / 4)));
    await clock.exclusive(() => state.sync());
    const value = state.get(modulesNamespace, module);
    if (!(value instanceof Disputed)) return value;
  }
  return undefined;
}

/**
 * A claim race settles by the first claim in the store: between claims only, the earliest wins,
 * then the Coder listed first (the lead's own rule, `chooseEscalationWinner`), so every claimant
 * reaches the same answer from the register alone, without waiting on a lead who may be busy
 * deliberating. The winner writes the settlement; the others yield. An escalation that holds
 * anything but claims is left to the lead (undefined).
 */
async function settleClaimRace(
  agentId: string,
  module: string,
  options: AtomicClaimOptions,
): Promise<unknown> {
  const { state, clock, emit } = options;
  const escalation = state
    .escalations()
    .find(
      (open) =>
        open.namespace === modulesNamespace && open.key === module && open.resolution === undefined,
    );
  if (escalation === undefined) return undefined;
  const contenders = escalation.contenders.map((contender) => ({
    agentId: contender.agentId,
    value: typeof contender.value === "string" ? contender.value : JSON.stringify(contender.value),
    at: contender.at,
  }));
  if (!contenders.every((contender) => contender.value.startsWith(claimedPrefix))) return undefined;
  const winner = chooseEscalationWinner(
    { escalationId: escalation.id, key: escalation.key, contenders },
    options.agentOrder,
  );
  if (winner === `${claimedPrefix}${agentId}`) {
    await clock.exclusive(() => state.resolve(escalation.id, winner, { by: agentId }));
    emit({ type: "escalation-resolve", escalationId: escalation.id, by: agentId, value: winner });
  }
  return winner;
}

/**
 * Atomic claim: a Coder takes a module in the shared state's register before building it. Two
 * claims made without seeing each other are concurrent writes to one register: the shared state
 * escalates them instead of letting both win, the first claim in the store wins, and exactly one
 * Coder builds. Anything else escalated there waits for the lead.
 */
export async function claimModule(
  agentId: string,
  module: string,
  options: AtomicClaimOptions,
): Promise<ClaimOutcome> {
  const { state, clock, emit } = options;
  const holder = claimantOf(state.get(modulesNamespace, module));
  if (holder !== undefined && holder !== agentId) {
    return { granted: false, reason: `already claimed by ${holder}`, causedBy: holder };
  }
  emit({ type: "module-claim", agentId, module });
  const mine = `${claimedPrefix}${agentId}`;
  await clock.exclusive(() => state.put(modulesNamespace, module, mine));
  await clock.exclusive(() => state.sync());
  let after = state.get(modulesNamespace, module);
  if (after instanceof Disputed) {
    for (const escalation of state.escalations()) options.announce(escalation);
    const settled = await settleClaimRace(agentId, module, options);
    if (settled !== undefined) {
      after = settled;
    } else {
      emit({
        type: "agent-log",
        agentId,
        text: `Claim on ${module} escalated: waiting for a decision…`,
      });
      after = await awaitResolution(module, options);
    }
  }
  if (after === mine) return { granted: true };
  const winner = claimantOf(after) ?? null;
  return {
    granted: false,
    reason:
      winner === null
        ? "claim escalated and never settled"
        : `claim settled for ${winner} (the first claim in the store)`,
    causedBy: winner,
  };
}
