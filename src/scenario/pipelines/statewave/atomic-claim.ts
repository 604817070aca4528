import type { UnstampedEvent } from "../../../agents/agent-runtime.js";
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
 * Atomic claim: a Coder takes a module in the shared state's register before building it. Two
 * claims made without seeing each other are concurrent writes to one register: the shared state
 * escalates them instead of letting both win, the lead settles it, and exactly one Coder builds.
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
    emit({
      type: "agent-log",
      agentId,
      text: `Claim on ${module} escalated: waiting for a decision…`,
    });
    after = await awaitResolution(module, options);
  }
  if (after === mine) return { granted: true };
  const winner = claimantOf(after) ?? null;
  return {
    granted: false,
    reason: winner === null ? "claim escalated and never settled" : `claim settled for ${winner}`,
    causedBy: winner,
  };
}
