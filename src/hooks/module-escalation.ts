import type { ContextStore } from "../context/context-store.js";

/** The shared-state namespace whose register holds who works on each module (as Coders claim). */
export const modulesNamespace = "modules";
/** How a module's holder is written in that register (the value Coders write). */
export const claimedByPrefix = "claimed-by:";

/**
 * Raises the escalation of two sessions' concurrent edits of `module`: two replicas of the shared
 * state, opened before either writes, each write their session's claim on `modules/<module>`; the
 * writes are concurrent (neither replica saw the other's), so the shared state raises its
 * `concurrent-register` escalation, announced once, attributed to both sessions. `values` says
 * what each side stands for when it is not a claim (a retirement against a write that ignored it).
 */
export async function raiseModuleEscalation(input: {
  store: ContextStore;
  subjectId: string;
  module: string;
  holders: readonly [string, string];
  /** @default `claimed-by:<holder>` for each */
  values?: readonly [string, string];
}): Promise<void> {
  const { SharedState } = await import("../crdt/shared-state.js");
  const [first, second] = input.holders;
  const replicas = await Promise.all(
    [first, second].map((agentId) =>
      SharedState.open({ store: input.store, subjectId: input.subjectId, agentId, live: false }),
    ),
  );
  try {
    for (const [index, replica] of replicas.entries()) {
      const value = input.values?.[index] ?? `${claimedByPrefix}${replica.agentId}`;
      await replica.put(modulesNamespace, input.module, value);
    }
    // Each replica imports the other's write; whichever the shared state picks announces it.
    for (const replica of replicas) await replica.sync();
  } finally {
    for (const replica of replicas) await replica.close();
  }
  await input.store.compileMemories(input.subjectId);
}
