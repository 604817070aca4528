import type { UnstampedEvent } from "../../../agents/agent-runtime.js";
import type { SharedContext } from "../../../context/shared-context.js";
import type { InvalidationNotice } from "../../../coordination/coordination.js";
import { decisionIdsOf, decisionLines } from "../read-event.js";
import { estimateTokens } from "../read-tokens.js";
import { bearingOn } from "../task-modules.js";
import type { DecisionIndex } from "./decision-index.js";

interface Watcher {
  agentId: string;
  module: string;
  onInvalid(notice: InvalidationNotice): void;
}

/** What {@link MidBuildInvalidation} needs. */
export interface MidBuildInvalidationOptions {
  contextOf(agentId: string): SharedContext;
  index: DecisionIndex;
  budgetTokens: number;
  /** Runs store work in the run's fixed order (the scenario clock's `exclusive`). */
  exclusive<T>(work: () => Promise<T>): Promise<T>;
  emit(event: UnstampedEvent): void;
  /** Module -> the modules it depends on: a decision retiring one reaches work on the others. */
  dependsOn?: ReadonlyMap<string, readonly string[]>;
  /**
   * Whether contradictions are surfaced (`dispute surfaced`): a retiring decision that stands in
   * dispute with another holds the work instead of cutting it short. @default true
   */
  disputesSurfaced?: boolean;
}

/**
 * Mid-build invalidation: work in flight (from the read before a module until its build ends) is
 * told at once when a decision lands that contradicts it: the module deprecated by someone else.
 * A change that does not contradict it (a "keep", a decision on another module) is read and the
 * work carries on, and the agent says so.
 *
 * Delivery happens at the scenario time of the write, right after it, in the run's fixed order:
 * the news travels through the store (each agent re-reads its own shared context), but how long
 * the store takes to answer never decides whether a build is cut short.
 */
export class MidBuildInvalidation {
  readonly #options: MidBuildInvalidationOptions;
  readonly #watchers = new Set<Watcher>();

  constructor(options: MidBuildInvalidationOptions) {
    this.#options = options;
  }

  /** Watches `module` for `agentId` until the returned function is called. */
  watch(agentId: string, module: string, onInvalid: (notice: InvalidationNotice) => void) {
    const watcher: Watcher = { agentId, module, onInvalid };
    this.#watchers.add(watcher);
    return () => {
      this.#watchers.delete(watcher);
    };
  }

  /** After `writerId` published: every other agent with work in flight re-reads what changed. */
  async afterWrite(writerId: string): Promise<void> {
    const { contextOf, index, budgetTokens, exclusive, emit } = this.#options;
    for (const watcher of [...this.#watchers]) {
      if (watcher.agentId === writerId || !this.#watchers.has(watcher)) continue;
      const { agentId, module } = watcher;
      const bearing = bearingOn(module, this.#options.dependsOn ?? new Map());
      // The decisions on the module and what it depends on are read exactly (by target).
      const read = await exclusive(() =>
        contextOf(agentId).beforeActing(agentId, `Build module ${module}`, {
          maxTokens: budgetTokens,
          targets: [...bearing],
        }),
      );
      // A re-read delivers a bundle into the agent's context like any read: on the record, charged.
      const known = index.decisionsIn(read.decisions);
      emit({
        type: "context-read",
        agentId,
        task: `Build module ${module}`,
        memoryIds: read.bundle.facts.map((memory) => memory.id),
        decisions: decisionLines(known),
        decisionIds: decisionIdsOf(known),
        disputes: [],
        tokens: estimateTokens(read.assembledContext),
        source: "re-read",
      });
      const changed = index
        .decisionsIn(read.changedSinceLastRead)
        .filter((decision) => bearing.has(decision.target) && decision.by !== agentId);
      if (changed.length === 0) continue;
      const deprecation = changed.find(
        (decision) => decision.value === "deprecate" || decision.value === "replace",
      );
      if (deprecation !== undefined) {
        // Made without seeing what the work stands on, the decision is one side of a dispute:
        // the re-read shows the two memories contradicting each other, and the work is held.
        const disputed =
          (this.#options.disputesSurfaced ?? true) &&
          read.contradictions.some((dispute) => bearing.has(dispute.target));
        watcher.onInvalid({
          reason: `deprecated by ${deprecation.by}: ${deprecation.content}`,
          by: deprecation.by,
          ...(disputed ? { disputed: true } : {}),
        });
        continue;
      }
      const news = changed.map((decision) => `${decision.by} decided ${decision.value}`).join(", ");
      emit({
        type: "agent-log",
        agentId,
        text: `Re-read ${module}: ${news}; nothing contradicts the work, carrying on.`,
      });
    }
  }
}
