import type { Escalation } from "../crdt/escalation.js";
import type { SharedState } from "../crdt/shared-state.js";
import {
  layerProjectDecisions,
  type ProjectLayer,
  withProjectSection,
} from "../promotion/read-with-project.js";
import { CallerReads } from "./caller-reads.js";
import { retractsKey } from "./compile-memories.js";
import type { ContextRead, InvalidationNotice, MemoryDispute } from "./context-read.js";
import type { ContextStore, Memory, StoreChange, Subscription } from "./context-store.js";
import type { DecisionHistory } from "./decision-history.js";
import {
  type DecideOptions,
  type DecideResult,
  DecisionLife,
  decisionKind,
  type RetractOptions,
} from "./decision-life.js";
import { withLeftOut } from "./left-out.js";
import { memoryDisputesAmong } from "./memory-disputes.js";
import { contradictedIds, isRetraction, sourceOf, targetOf } from "./memory-metadata.js";
import { listAllMemories } from "./memory-query.js";
import { readForTask } from "./read-for-task.js";
import { allActiveDecisions, listOnTargets } from "./reads-by-target.js";

export type { ContextRead, InvalidationNotice, MemoryDispute } from "./context-read.js";

/** Options of {@link SharedContext}. */
export interface SharedContextOptions {
  store: ContextStore;
  /** The subject every agent of the team shares (a project, a run). */
  subjectId: string;
  /** The merging shared state; its open escalations are reported as disputes. */
  state?: SharedState;
  /** @default Date.now */
  now?: () => number;
  /**
   * Called when work done on a store notification fails: looking up what superseded a memory
   * (the store's `searchMemories` rejected: a network error, a closed store) or an
   * `onInvalidated` listener threw. That work runs outside any call of the caller's, so without
   * this option the error would have nowhere to go; a throwing listener does not stop the others.
   * @default none: the first such error is kept and thrown by the next `beforeActing` (once)
   */
  onError?: (error: unknown) => void;
}

/**
 * The two-call primitive any agent loop can wrap: `beforeActing(callerId, task)` before each unit
 * of work returns the shared context ranked for that task; `decide(callerId, content, { kind })`
 * after publishes for everyone (compiled into a memory at once). Each caller's reads are recorded,
 * so `onInvalidated` can tell it when something it read is superseded or becomes disputed.
 *
 * @example
 * const shared = new SharedContext({ store, subjectId: "project-1" });
 * const context = await shared.beforeActing("coder", "implement login");
 * await shared.decide("planner", "Deprecate legacy-session-token", { kind: "architectural_decision", target: "legacy-session-token" });
 */
export class SharedContext {
  readonly #store: ContextStore;
  readonly #subjectId: string;
  readonly #state: SharedState | undefined;
  readonly #reads = new CallerReads();
  readonly #decisions: DecisionLife;
  /** Retractions' memory ids seen by any caller: a later decision on their target disputes nothing. */
  readonly #retractionIds = new Set<string>();
  readonly #listeners = new Map<string, Set<(notice: InvalidationNotice) => void>>();
  readonly #onError: ((error: unknown) => void) | undefined;
  /** The first background error while no `onError` was given, until `beforeActing` throws it. */
  #failure: { error: unknown } | undefined;
  #subscription: Subscription | undefined;
  #stopEscalations: (() => void) | undefined;
  #closed = false;

  constructor(options: SharedContextOptions) {
    this.#store = options.store;
    this.#subjectId = options.subjectId;
    this.#state = options.state;
    this.#onError = options.onError;
    this.#decisions = new DecisionLife({
      store: options.store,
      subjectId: options.subjectId,
      latestRead: (callerId) => this.#reads.latest(callerId),
    });
  }

  /** The shared subject. */
  get subjectId(): string {
    return this.#subjectId;
  }

  /** The store it reads and writes (the caller's: closing the context does not close it). */
  get store(): ContextStore {
    return this.#store;
  }

  /**
   * Reads the context for `task` as `callerId` sees it now, and records what it received.
   * @param options.maxTokens token budget of the assembled context (@default the store's, 4000)
   * @param options.projectSubjectId a long-lived project subject read with this one: its decisions
   *   first (highest authority first), this subject's own on top where they legitimately supersede
   *   them, a conflicting one reported in `contradictions`. Never written to. (@default none)
   *   With it, `decisions` is every active decision of the subject (the layer weighs them all).
   * @param options.targets targets the task bears on besides those its words name (a module's
   *   dependencies): every active decision on them is in `decisions` (@default none)
   * @throws the first background error kept since the last call, when no `onError` was given
   */
  async beforeActing(
    callerId: string,
    task: string,
    options: { maxTokens?: number; projectSubjectId?: string; targets?: readonly string[] } = {},
  ): Promise<ContextRead> {
    const failure = this.#failure;
    if (failure !== undefined) {
      this.#failure = undefined;
      throw failure.error;
    }
    this.#ensureWatching();
    await this.#state?.sync();
    const { bundle, activeDecisions, notRead } = await readForTask(
      this.#store,
      this.#subjectId,
      task,
      options,
    );
    const retractions = activeDecisions.filter(isRetraction);
    for (const retraction of retractions) this.#retractionIds.add(retraction.id);
    const decisions = activeDecisions.filter((memory) => !isRetraction(memory));
    const project =
      options.projectSubjectId === undefined
        ? undefined
        : await layerProjectDecisions(this.#store, {
            runSubjectId: this.#subjectId,
            projectSubjectId: options.projectSubjectId,
            runDecisions: decisions,
          });
    const received = new Map<string, Memory>();
    // Retractions count as read: a later decision on their target replaces them.
    for (const memory of [...bundle.facts, ...activeDecisions]) received.set(memory.id, memory);
    const changedSinceLastRead = this.#reads.record(callerId, received.values());
    const disputes = (this.#state?.escalations() ?? []).filter(
      (escalation) => escalation.resolution === undefined,
    );
    // Each dispute's sides are read exactly by its target (the list read is not every decision).
    const contradictions = await memoryDisputesAmong(
      this.#store,
      this.#subjectId,
      [...received.values()],
      new Map(),
    );
    const leftOut = withLeftOut(
      bundle.assembledContext,
      task,
      activeDecisions,
      new Set(bundle.facts.map((memory) => memory.id)),
      notRead,
    );
    const read: ContextRead = {
      bundle,
      assembledContext: leftOut.text,
      namedDecisions: leftOut.named,
      decisionsLeftOut: leftOut.count,
      ...(leftOut.atLeast ? { decisionsLeftOutAtLeast: true } : {}),
      decisionsNotRead: notRead.count,
      decisions,
      retractions,
      disputes,
      contradictions,
      changedSinceLastRead,
    };
    if (project === undefined) return read;
    return this.#withProjectLayer(callerId, read, task, options.projectSubjectId ?? "", project);
  }

  /**
   * `read` with the project's decisions layered in: their section in the assembled context, the
   * decisions in the layered order, the run's conflicts with the project among the contradictions.
   * The project's decisions count as read too: a decision made next supersedes what it knew.
   */
  #withProjectLayer(
    callerId: string,
    read: ContextRead,
    task: string,
    projectSubjectId: string,
    project: ProjectLayer,
  ): ContextRead {
    const fresh = project.projectDecisions.map((candidate) => candidate.memory);
    return {
      ...read,
      assembledContext: withProjectSection(
        read.assembledContext,
        task,
        projectSubjectId,
        project.projectDecisions,
      ),
      decisions: project.decisions,
      contradictions: [...read.contradictions, ...project.conflicts],
      changedSinceLastRead: [...read.changedSinceLastRead, ...this.#reads.extend(callerId, fresh)],
    };
  }

  /**
   * Publishes what `callerId` decided: one episode of type `kind`, compiled into memories at once.
   *
   * The episode records what the caller knew (`provenance.read_memory_ids`: the memory ids its
   * latest `beforeActing` returned, plus `options.readMemoryIds`). Compile lets the new memory
   * supersede an older one with the same kind and target only when the caller wrote it or had read
   * it; otherwise both stay active and the new one records the contradiction, which every reader's
   * `beforeActing` then reports in `contradictions`.
   *
   * Authority (`options.authority`, in the episode's `metadata.authority`) gates that further: a
   * decision of lower authority never supersedes one of higher authority, even one its writer had
   * read; the two are then a dispute (in `contradictions`) until a decision of at least the higher
   * authority, made knowing both, settles it.
   *
   * @param options.kind the memory kind (@default the superseded memory's, else `architectural_decision`)
   * @param options.readMemoryIds memory ids the caller knew of by other means than `beforeActing`
   * @param options.supersedes the id of the active memory this decision replaces: it supersedes
   *   exactly that one (`provenance.supersedes_memory_ids`), taking its kind and target
   * @param options.idempotencyKey the same key twice stores one episode (a retry after a timeout);
   *   the second call returns the first one's episode and memories
   * @throws {DecisionLifecycleError} when `supersedes` names no memory of the subject, one no
   *   longer active (unless this caller replaced it under the same `idempotencyKey`), one without a
   *   target, or one of another kind or target than `options` names
   * @param options.authority how the decision was established: `user` when a person says so
   *   (@default `agent`: an agent's decision; the episode then names no class)
   */
  async decide(
    callerId: string,
    content: string,
    options: DecideOptions = {},
  ): Promise<DecideResult> {
    return this.#decisions.decide(callerId, content, options);
  }

  /**
   * Takes back a decision: an episode attributed to `callerId` (type the decision's kind, payload
   * `{ content: "Retracted: …", target, retracts: memoryId, reason }`) whose memory supersedes
   * exactly that one. The decision stops being active; the retraction's memory stands for no
   * decision (`beforeActing` lists it in `retractions`, never in `decisions` or disputes), and the
   * next decision on the target replaces it. Whoever read the decision is notified.
   *
   * @param options.reason why, in words another agent can act on
   * @param options.idempotencyKey the same key twice stores one retraction
   * @throws {DecisionLifecycleError} when the subject has no such memory, it is no longer active
   *   (the message names who superseded or retracted it), or it has no target
   */
  async retract(
    callerId: string,
    memoryId: string,
    options: RetractOptions = {},
  ): Promise<DecideResult> {
    return this.#decisions.retract(callerId, memoryId, options);
  }

  /**
   * The history of one memory of the subject: who wrote it, who declared they had read it (a later
   * episode's `provenance.read_memory_ids`), and who superseded or retracted it, with what. Reads
   * the memories on its target by index, and looks for readers among their episodes and the
   * subject's newest 100 (`readersWithin` says when there are older ones); records no read.
   * @throws {DecisionLifecycleError} `not-found` when the subject has no memory with that id
   */
  async history(memoryId: string): Promise<DecisionHistory> {
    return this.#decisions.history(memoryId);
  }

  /**
   * Calls `listener` when a memory `callerId` read is superseded by someone else's write, or when a
   * field it read (a memory's target) or wrote becomes disputed. Returns the function that stops it.
   */
  onInvalidated(callerId: string, listener: (notice: InvalidationNotice) => void): () => void {
    this.#ensureWatching();
    const listeners = this.#listeners.get(callerId) ?? new Set();
    listeners.add(listener);
    this.#listeners.set(callerId, listeners);
    return () => {
      listeners.delete(listener);
    };
  }

  /**
   * The open disputes between active decisions (`contradicting-decisions`) on the subject, without
   * recording a read: what a dashboard or the MCP decisions resource lists.
   */
  async contradictions(): Promise<MemoryDispute[]> {
    const decisions = await allActiveDecisions(this.#store, this.#subjectId);
    return memoryDisputesAmong(
      this.#store,
      this.#subjectId,
      decisions,
      new Map([[decisionKind, decisions]]),
    );
  }

  /** Stops watching. Does not close the store or the state (they are the caller's). Idempotent. */
  async close(): Promise<void> {
    this.#closed = true;
    this.#subscription?.close();
    this.#subscription = undefined;
    this.#stopEscalations?.();
    this.#stopEscalations = undefined;
    this.#listeners.clear();
  }

  #notify(callerId: string, notice: InvalidationNotice): void {
    for (const listener of [...(this.#listeners.get(callerId) ?? [])]) {
      // One failing listener must neither stop the others nor escape into the store's watch.
      try {
        listener(notice);
      } catch (error) {
        this.#report(error);
      }
    }
  }

  /** Hands a background error to `onError`, or keeps the first one for the next `beforeActing`. */
  #report(error: unknown): void {
    if (this.#onError === undefined) {
      this.#failure ??= { error };
      return;
    }
    try {
      this.#onError(error);
    } catch (reportError) {
      // Called from a promise's catch: a throwing reporter would be an unhandled rejection.
      this.#failure ??= { error: reportError };
    }
  }

  #ensureWatching(): void {
    if (this.#closed || this.#subscription !== undefined) return;
    this.#subscription = this.#store.watch(this.#subjectId, (change) => this.#onChange(change));
    this.#stopEscalations = this.#state?.onEscalation((escalation) =>
      this.#onEscalation(escalation),
    );
  }

  #onChange(change: StoreChange): void {
    if (change.type !== "memory") return;
    if (change.memory.status === "active") {
      this.#onContradiction(change.memory);
      return;
    }
    if (change.memory.status !== "superseded") return;
    const superseded = change.memory;
    const target = targetOf(superseded);
    const readers = this.#reads.forget(superseded.id);
    if (readers.length === 0) return;
    // One lookup for every reader; it runs on a store notification, so its failure is reported.
    this.#replacementOf(superseded)
      .then((replacement) => {
        const by = replacement ? sourceOf(replacement) : "unknown";
        const what = target ?? superseded.kind;
        for (const callerId of readers) {
          if (by === callerId) continue;
          this.#notify(callerId, {
            memoryId: superseded.id,
            ...(target !== undefined ? { target } : {}),
            by,
            // "superseded by <agent>" first, so a one-line summary can stop at the colon.
            reason: replacement
              ? `${replacement.metadata[retractsKey] === superseded.id ? "retracted" : "superseded"} by ${by}: ${replacement.content}`
              : `${what} was superseded`,
          });
        }
      })
      .catch((error: unknown) => this.#report(error));
  }

  /** Tells whoever read a memory that a newer one, written without knowing it, contradicts it. */
  #onContradiction(memory: Memory): void {
    // A retraction's memory replaces exactly the one it names; any other on its target stays.
    if (isRetraction(memory)) return;
    const contradicted = contradictedIds(memory).filter((id) => !this.#retractionIds.has(id));
    const by = sourceOf(memory);
    const target = targetOf(memory);
    for (const [callerId, reads] of this.#reads.reliedOn()) {
      if (callerId === by) continue;
      const readId = contradicted.find((id) => reads.has(id));
      if (readId === undefined) continue;
      const what = target ?? memory.kind;
      this.#notify(callerId, {
        memoryId: readId,
        ...(target !== undefined ? { target } : {}),
        by,
        reason: `${what} is disputed: ${by} contradicts it ("${memory.content}")`,
      });
    }
  }

  /** The active memory that took a superseded one's place (same kind and target). */
  async #replacementOf(memory: Memory): Promise<Memory | undefined> {
    const target = targetOf(memory);
    // Exactly the active memories on its target (all of its kind when it has none).
    const candidates =
      target === undefined
        ? await listAllMemories(this.#store, this.#subjectId, { kind: memory.kind })
        : await listOnTargets(this.#store, this.#subjectId, [target], { kind: memory.kind });
    const sameTarget = candidates.filter((candidate) => targetOf(candidate) === target);
    return (
      sameTarget.find((candidate) => candidate.metadata[retractsKey] === memory.id) ?? sameTarget[0]
    );
  }

  #onEscalation(escalation: Escalation): void {
    if (escalation.resolution !== undefined) return;
    const names = escalation.contenders.map((contender) => contender.agentId);
    for (const [callerId, reads] of this.#reads.reliedOn()) {
      const readIt = [...reads.values()].includes(escalation.key);
      if (!readIt && !names.includes(callerId)) continue;
      const others = names.filter((name) => name !== callerId);
      this.#notify(callerId, {
        target: escalation.key,
        by: others.join(", ") || names.join(", "),
        reason: `${escalation.namespace}/${escalation.key} is disputed between ${names.join(" and ")}`,
      });
    }
  }
}
