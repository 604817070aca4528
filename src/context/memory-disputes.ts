import type { ContextStore, Memory } from "./context-store.js";
import { contradictedIds, isRetraction, targetOf } from "./memory-metadata.js";
import type { MemoryDispute } from "./shared-context.js";

/**
 * The open memory disputes among `memories`: a memory that contradicts another still active one.
 * The other side may not be among what the task's context ranked in, so it is looked up.
 * @param activeByKind the subject's active memories already read, by kind; what is looked up is
 *   added, so one kind is searched once
 */
export async function memoryDisputesAmong(
  store: ContextStore,
  subjectId: string,
  memories: Memory[],
  activeByKind: Map<string, Memory[]>,
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
    let active = activeByKind.get(memory.kind);
    if (active === undefined) {
      active = await store.searchMemories(subjectId, {
        kind: memory.kind,
        limit: 100,
      });
      activeByKind.set(memory.kind, active);
    }
    // searchMemories gives newest first (in compile order), so reversed it is oldest first.
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
