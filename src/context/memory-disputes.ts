import type { ContextStore, Memory } from "./context-store.js";
import { contradictedIds, isRetraction, targetOf } from "./memory-metadata.js";
import { listOnTargets } from "./reads-by-target.js";
import type { MemoryDispute } from "./shared-context.js";

/**
 * The open memory disputes among `memories`: a memory that contradicts another still active one.
 * The other side may not be among what the task's context ranked in, so it is looked up, exactly:
 * every active memory of the kind on the target.
 * @param activeByKind every active memory of the subject of a kind, when already read (complete)
 */
export async function memoryDisputesAmong(
  store: ContextStore,
  subjectId: string,
  memories: Memory[],
  activeByKind: ReadonlyMap<string, readonly Memory[]>,
): Promise<MemoryDispute[]> {
  const contradicting = memories.filter(
    (memory) => contradictedIds(memory).length > 0 && !isRetraction(memory),
  );
  const disputes = new Map<string, MemoryDispute>();
  for (const memory of contradicting) {
    const target = targetOf(memory);
    if (target === undefined) continue;
    const key = `${memory.kind}\u0000${target}`;
    if (disputes.has(key)) continue;
    // The subject's active memories of that kind already read, or exactly those on the target.
    const active =
      activeByKind.get(memory.kind) ??
      (await listOnTargets(store, subjectId, [target], { kind: memory.kind }));
    // Both reads give newest first (in compile order), so reversed it is oldest first.
    // A retraction stands for no decision: a later one on its target disputes nothing.
    const sides = active
      .filter((candidate) => targetOf(candidate) === target && !isRetraction(candidate))
      .reverse();
    const ids = new Set(sides.map((side) => side.id));
    // Settled since: the contradicted memory was superseded by someone who knew it.
    if (!sides.some((side) => contradictedIds(side).some((id) => ids.has(id)))) continue;
    disputes.set(key, { kind: memory.kind, target, memories: sides });
  }
  return [...disputes.values()];
}
