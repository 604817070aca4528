import type { Escalation } from "../crdt/escalation.js";
import type { ContextBundle, Memory } from "./context-store.js";

/**
 * What `SharedContext` answers and tells: the read before acting, a dispute between memories, a
 * notice that something read is no longer true. Types only (`shared-context.ts` re-exports them).
 */

/** What `beforeActing` returns: the context ranked for the task, and what changed. */
export interface ContextRead {
  bundle: ContextBundle;
  /**
   * The ranked context as text, completed: the newest decision on every target the task names is
   * in it, ranked or not, and a last line counts the active decisions the token budget left out.
   */
  assembledContext: string;
  /**
   * The newest decision on each target the task names that the ranking had left out of the
   * bundle: `assembledContext` shows them in a section of their own.
   */
  namedDecisions: Memory[];
  /**
   * How many active decisions `assembledContext` does not show: those in `decisions` it leaves
   * out plus `decisionsNotRead` (a lower bound when `decisionsLeftOutAtLeast`).
   */
  decisionsLeftOut: number;
  /** `decisionsLeftOut` is a lower bound (the count of decisions not read saw one page). */
  decisionsLeftOutAtLeast?: boolean;
  /**
   * Active decisions not in `decisions`: counted from one page of the newest, never read in
   * full (at least this many when `decisionsLeftOutAtLeast`). `get_decision_history` reads one.
   */
  decisionsNotRead?: number;
  /**
   * The active decision memories (`architectural_decision`) the task bears on, newest first, each
   * read exactly whatever the subject's size: every one on a target the task's words name (or
   * `targets` lists), every untargeted one, and those the ranked context holds; with a project
   * subject, every one. Retractions are not among them.
   */
  decisions: Memory[];
  /**
   * Active retractions of decisions (`metadata.retracts` names the retracted memory) among those
   * read as `decisions` are, newest first: what was taken back, by whom and why. A retraction stands for no decision.
   */
  retractions: Memory[];
  /** Open escalations in the shared state (values two agents set differently; nobody won). */
  disputes: Escalation[];
  /**
   * Disputes in the memory layer: active memories on the same subject matter (kind and target)
   * written by agents who had not seen each other's, or by a writer of lower authority than the
   * side it had read (see `authority.ts`), so none superseded the others (compile recorded
   * `metadata.contradicts`). Every side stays in `decisions` and in the context.
   */
  contradictions: MemoryDispute[];
  /** Memories this caller receives now and had not received before. */
  changedSinceLastRead: Memory[];
}

/** Active memories that disagree on one subject matter; none of their writers knew the others'. */
export interface MemoryDispute {
  kind: string;
  target: string;
  /** Every active memory of that kind and target, oldest first (each side of the dispute). */
  memories: Memory[];
}

/** Why something a caller read is no longer true. */
export interface InvalidationNotice {
  /** The memory that was superseded, when it is a memory. */
  memoryId?: string;
  /** What it is about: the memory's target, or the disputed key. */
  target?: string;
  reason: string;
  /** The agent whose write caused it. */
  by: string;
}
