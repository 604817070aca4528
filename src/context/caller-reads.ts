import type { Memory } from "./context-store.js";
import { targetOf } from "./memory-metadata.js";

/**
 * What each caller of one `SharedContext` has read, kept in one place because three parts need it:
 * `beforeActing` reports what is new to the caller, a decision records what its writer knew, and
 * the invalidation notices go to whoever relies on what changed.
 */
export class CallerReads {
  /** Memory ids each caller has received, ever (for `changedSinceLastRead`). */
  readonly #seen = new Map<string, Set<string>>();
  /** Memory id -> target, for the memories each caller currently relies on. */
  readonly #reads = new Map<string, Map<string, string | undefined>>();
  /** The memory ids each caller received from its latest `beforeActing`: what its next `decide` knew. */
  readonly #latestRead = new Map<string, string[]>();

  /** Records a new read by `callerId`; returns the memories it had never received before. */
  record(callerId: string, memories: Iterable<Memory>): Memory[] {
    this.#latestRead.set(callerId, []);
    return this.extend(callerId, memories);
  }

  /**
   * Adds memories to `callerId`'s latest read (a project's, layered after the run's); returns
   * those it had never received before.
   */
  extend(callerId: string, memories: Iterable<Memory>): Memory[] {
    const seen = this.#seen.get(callerId) ?? new Set<string>();
    const reads = this.#reads.get(callerId) ?? new Map<string, string | undefined>();
    const received: string[] = [];
    const changed: Memory[] = [];
    for (const memory of memories) {
      if (!seen.has(memory.id)) changed.push(memory);
      seen.add(memory.id);
      reads.set(memory.id, targetOf(memory));
      received.push(memory.id);
    }
    this.#seen.set(callerId, seen);
    this.#reads.set(callerId, reads);
    this.#latestRead.set(callerId, [...(this.#latestRead.get(callerId) ?? []), ...received]);
    return changed;
  }

  /** The memory ids `callerId` received from its latest read (none before its first). */
  latest(callerId: string): readonly string[] {
    return this.#latestRead.get(callerId) ?? [];
  }

  /** Forgets `memoryId` (it was superseded); returns the callers that relied on it. */
  forget(memoryId: string): string[] {
    const readers: string[] = [];
    for (const [callerId, reads] of this.#reads) {
      if (reads.delete(memoryId)) readers.push(callerId);
    }
    return readers;
  }

  /** Each caller with the memories it relies on now (memory id -> target). */
  reliedOn(): IterableIterator<[string, ReadonlyMap<string, string | undefined>]> {
    return this.#reads.entries();
  }
}
