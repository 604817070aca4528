import type { KnownDecision } from "../../../agents/brain.js";
import type { Memory } from "../../../context/context-store.js";

/**
 * The decisions this run published, by the id of the episode that carried each one. A memory
 * links back to its episodes (`source_episode_ids`) on every server, including a Statewave whose
 * compiler keeps neither the decision's target nor its value in the memory: the index turns a
 * memory back into the decision it compiles, whatever the server did to its metadata.
 */
export class DecisionIndex {
  readonly #byEpisode = new Map<string, KnownDecision>();

  /** Records a decision as published in episode `episodeId`. */
  add(episodeId: string, decision: KnownDecision): void {
    this.#byEpisode.set(episodeId, decision);
  }

  /** The decision a memory compiles (its newest source episode that is a decision), if any. */
  decisionOf(memory: Memory): KnownDecision | undefined {
    for (const episodeId of [...memory.sourceEpisodeIds].reverse()) {
      const decision = this.#byEpisode.get(episodeId);
      if (decision !== undefined) return decision;
    }
    return undefined;
  }

  /** Every decision published on `target`, oldest first (superseded ones included). */
  onTarget(target: string): KnownDecision[] {
    return [...this.#byEpisode.values()].filter((decision) => decision.target === target);
  }

  /** How many decisions the run has published (superseded ones included). */
  get size(): number {
    return this.#byEpisode.size;
  }

  /** The decisions among `memories`, in their order. */
  decisionsIn(memories: readonly Memory[]): KnownDecision[] {
    return memories
      .map((memory) => this.decisionOf(memory))
      .filter((decision): decision is KnownDecision => decision !== undefined);
  }
}
