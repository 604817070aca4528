import type { ArbitrationRequest } from "../../../coordination/coordination.js";
import type { Escalation } from "../../../crdt/escalation.js";
import type { SharedState } from "../../../crdt/shared-state.js";
import type { Clock } from "../../clock.js";
import { stringOf } from "./read-context.js";

/** What {@link arbitrateEscalations} needs. */
export interface ArbitrationOptions {
  agentId: string;
  /** The arbiter's own replica (it knows only what it syncs). */
  state: SharedState;
  clock: Clock;
  /** How often the arbiter looks, in scenario milliseconds. */
  periodMs: number;
  choose(request: ArbitrationRequest): string | undefined;
  until: Promise<void>;
  onResolved(escalation: Escalation, winner: string): void;
}

/**
 * The lead on duty: every `periodMs` of scenario time it syncs its replica and settles the open
 * escalations its rule can settle, until `until` settles. Looking at fixed scenario times (not
 * whenever a store notification arrives) keeps the run's outcome independent of the store.
 */
export async function arbitrateEscalations(options: ArbitrationOptions): Promise<void> {
  const { clock } = options;
  let finished = false;
  void options.until.then(() => {
    finished = true;
  });
  // A failed settle must not stop the lead's duty (nor reject before anyone awaits it): the first
  // failure is rethrown once `until` settles, so the run still fails clearly.
  let failure: { error: unknown } | undefined;
  while (!finished) {
    await clock.sleep(options.periodMs);
    try {
      await settleOpen(options);
    } catch (error) {
      failure ??= { error };
    }
  }
  if (failure !== undefined) throw failure.error;
}

async function settleOpen(options: ArbitrationOptions): Promise<void> {
  const { state, clock } = options;
  await clock.exclusive(() => state.sync());
  for (const escalation of state.escalations()) {
    if (escalation.resolution !== undefined) continue;
    const winner = options.choose({
      escalationId: escalation.id,
      key: escalation.key,
      contenders: escalation.contenders.map((contender) => ({
        agentId: contender.agentId,
        value: stringOf(contender.value),
        at: contender.at,
      })),
    });
    if (winner === undefined) continue;
    await clock.exclusive(() => state.resolve(escalation.id, winner, { by: options.agentId }));
    options.onResolved(escalation, winner);
  }
}
