/**
 * The run's ids for published decisions, in every mode: `<agentId>#<n>` for an agent's n-th
 * decision, unless the caller gives one (the id its `decision-write` event carries). A given id
 * still counts as one of the agent's decisions.
 */
export class DecisionIds {
  readonly #counts = new Map<string, number>();

  /** The id of `agentId`'s next decision: `given`, else `<agentId>#<n>`. */
  next(agentId: string, given?: string): string {
    const count = (this.#counts.get(agentId) ?? 0) + 1;
    this.#counts.set(agentId, count);
    return given ?? `${agentId}#${count}`;
  }
}
