import type { Escalation } from "../crdt/escalation.js";
import type { SharedState } from "../crdt/shared-state.js";
import { layerProjectDecisions, withProjectSection } from "../promotion/read-with-project.js";
import { type Authority, authorityKey } from "./authority.js";
import {
  contradictsKey,
  readMemoryIdsKey,
  retractsKey,
  supersedesMemoryIdsKey,
} from "./compile-memories.js";
import type {
  ContextBundle,
  ContextStore,
  Episode,
  JsonObject,
  Memory,
  StoreChange,
  Subscription,
  Timeline,
} from "./context-store.js";
import { type DecisionHistory, decisionHistory } from "./decision-history.js";
import { DecisionLifecycleError } from "./errors/decision-lifecycle-error.js";
import { readWholeTimeline } from "./whole-timeline.js";

/** What `beforeActing` returns: the context ranked for the task, and what changed. */
export interface ContextRead {
  bundle: ContextBundle;
  assembledContext: string;
  /** Active decision memories (`architectural_decision`), newest first; retractions are not among them. */
  decisions: Memory[];
  /**
   * Active retractions of decisions (`metadata.retracts` names the retracted memory), newest
   * first: what was taken back, by whom and why. A retraction stands for no decision.
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

/** What `decide` and `retract` return: the episode written and the memories it compiled into. */
export interface DecideResult {
  episode: Episode;
  memories: Memory[];
}

/** The decision kind `beforeActing` reports separately. */
const decisionKind = "architectural_decision";

/** Bounds the paging, so a huge subject cannot stall a call (100 000 episodes). */
const timelineMaxPages = 1000;

function notFound(memoryId: string, subjectId: string): DecisionLifecycleError {
  return new DecisionLifecycleError(
    memoryId,
    "not-found",
    `subject ${JSON.stringify(subjectId)} has no memory ${JSON.stringify(memoryId)} (ids come from check_shared_decisions, beforeActing or the timeline)`,
  );
}

/** True for a retraction's memory: it names the memory it took back. */
function isRetraction(memory: Memory): boolean {
  return typeof memory.metadata[retractsKey] === "string";
}

/** The ids of the memories a newer memory contradicts (`metadata.contradicts`). */
function contradictedIds(memory: Memory): string[] {
  const ids = memory.metadata[contradictsKey];
  return Array.isArray(ids) ? ids.filter((id): id is string => typeof id === "string") : [];
}

/** A memory's supersede key (`payload.target`), as the store's compile rules record it. */
function targetOf(memory: Memory): string | undefined {
  const target = memory.metadata.target;
  return typeof target === "string" ? target : undefined;
}

function sourceOf(memory: Memory): string {
  const source = memory.metadata.source;
  return typeof source === "string" ? source : "unknown";
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
  /** Memory ids each caller has received, ever (for `changedSinceLastRead`). */
  readonly #seen = new Map<string, Set<string>>();
  /** Memory id -> target, for the memories each caller currently relies on. */
  readonly #reads = new Map<string, Map<string, string | undefined>>();
  /** The memory ids each caller received from its latest `beforeActing`: what its next `decide` knew. */
  readonly #latestRead = new Map<string, string[]>();
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
   * @throws the first background error kept since the last call, when no `onError` was given
   */
  async beforeActing(
    callerId: string,
    task: string,
    options: { maxTokens?: number; projectSubjectId?: string } = {},
  ): Promise<ContextRead> {
    const failure = this.#failure;
    if (failure !== undefined) {
      this.#failure = undefined;
      throw failure.error;
    }
    this.#ensureWatching();
    await this.#state?.sync();
    const [bundle, activeDecisions] = await Promise.all([
      this.#store.getContext(
        this.#subjectId,
        task,
        options.maxTokens !== undefined ? { maxTokens: options.maxTokens } : {},
      ),
      this.#store.searchMemories(this.#subjectId, { kind: decisionKind, limit: 100 }),
    ]);
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
    const seen = this.#seen.get(callerId) ?? new Set<string>();
    const changedSinceLastRead = [...received.values()].filter((memory) => !seen.has(memory.id));
    for (const id of received.keys()) seen.add(id);
    this.#seen.set(callerId, seen);
    const reads = this.#reads.get(callerId) ?? new Map<string, string | undefined>();
    for (const memory of received.values()) reads.set(memory.id, targetOf(memory));
    this.#reads.set(callerId, reads);
    this.#latestRead.set(callerId, [...received.keys()]);
    const disputes = (this.#state?.escalations() ?? []).filter(
      (escalation) => escalation.resolution === undefined,
    );
    // The active decisions were just read: the dispute lookup reuses them instead of asking again.
    const contradictions = await this.#contradictionsAmong(
      [...received.values()],
      new Map([[decisionKind, activeDecisions]]),
    );
    if (project === undefined) {
      return {
        bundle,
        assembledContext: bundle.assembledContext,
        decisions,
        retractions,
        disputes,
        contradictions,
        changedSinceLastRead,
      };
    }
    // The project's decisions count as read too: a decision made next supersedes what it knew.
    const fresh = project.projectDecisions.map((candidate) => candidate.memory);
    for (const memory of fresh) {
      reads.set(memory.id, targetOf(memory));
      if (!seen.has(memory.id)) changedSinceLastRead.push(memory);
      seen.add(memory.id);
    }
    this.#latestRead.set(callerId, [...received.keys(), ...fresh.map((memory) => memory.id)]);
    return {
      bundle,
      assembledContext: withProjectSection(
        bundle.assembledContext,
        task,
        options.projectSubjectId ?? "",
        project.projectDecisions,
      ),
      decisions: project.decisions,
      retractions,
      disputes,
      contradictions: [...contradictions, ...project.conflicts],
      changedSinceLastRead,
    };
  }

  /**
   * The open memory disputes among `memories`: a memory that contradicts another still active one.
   * The other side may not be among what the task's context ranked in, so it is looked up.
   */
  async #contradictionsAmong(
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
        active = await this.#store.searchMemories(this.#subjectId, {
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
    options: {
      kind?: string;
      target?: string;
      confidence?: number;
      payload?: JsonObject;
      readMemoryIds?: readonly string[];
      authority?: Authority;
      supersedes?: string;
      idempotencyKey?: string;
    } = {},
  ): Promise<DecideResult> {
    const payload: JsonObject = { ...options.payload, content };
    let kind = options.kind ?? decisionKind;
    const replaced: string[] = [];
    if (options.supersedes !== undefined) {
      const found = await this.#replaceable(callerId, options.supersedes, options.idempotencyKey);
      if ("done" in found) return found.done;
      const { memory, target } = found;
      if (
        (options.kind !== undefined && options.kind !== memory.kind) ||
        (options.target !== undefined && options.target !== target)
      ) {
        throw new DecisionLifecycleError(
          memory.id,
          "other-subject-matter",
          `${memory.id} is a ${memory.kind} on ${JSON.stringify(target)}; a decision that supersedes it keeps its kind and target (leave them out, or publish without supersedes)`,
        );
      }
      kind = memory.kind;
      payload.target = target;
      replaced.push(memory.id);
    } else if (options.target !== undefined) {
      payload.target = options.target;
    }
    if (options.confidence !== undefined) payload.confidence = options.confidence;
    return this.#publish(callerId, kind, payload, {
      readMemoryIds: [...(options.readMemoryIds ?? []), ...replaced],
      supersedes: replaced,
      ...(options.idempotencyKey === undefined ? {} : { idempotencyKey: options.idempotencyKey }),
      ...(options.authority === undefined ? {} : { authority: options.authority }),
    });
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
    options: { reason?: string; idempotencyKey?: string } = {},
  ): Promise<DecideResult> {
    const found = await this.#replaceable(callerId, memoryId, options.idempotencyKey);
    if ("done" in found) return found.done;
    const { memory, target } = found;
    const reason = options.reason?.trim();
    const payload: JsonObject = {
      content: `Retracted: ${memory.content}${reason ? ` (reason: ${reason})` : ""}`,
      target,
      [retractsKey]: memory.id,
      ...(reason ? { reason } : {}),
    };
    return this.#publish(callerId, memory.kind, payload, {
      readMemoryIds: [memory.id],
      supersedes: [memory.id],
      ...(options.idempotencyKey === undefined ? {} : { idempotencyKey: options.idempotencyKey }),
    });
  }

  /**
   * The history of one memory of the subject: who wrote it, who declared they had read it (a later
   * episode's `provenance.read_memory_ids`), and who superseded or retracted it, with what. Reads
   * the subject's whole timeline; records no read.
   * @throws {DecisionLifecycleError} `not-found` when the subject has no memory with that id
   */
  async history(memoryId: string): Promise<DecisionHistory> {
    const history = decisionHistory(await this.#wholeTimeline(), memoryId);
    if (history === undefined) throw notFound(memoryId, this.#subjectId);
    return history;
  }

  /** One episode of `callerId`, compiled at once; its memories, even when a retry found it stored. */
  async #publish(
    callerId: string,
    kind: string,
    payload: JsonObject,
    options: {
      readMemoryIds: readonly string[];
      supersedes: readonly string[];
      idempotencyKey?: string;
      authority?: Authority;
    },
  ): Promise<DecideResult> {
    const knew = [
      ...new Set([...(this.#latestRead.get(callerId) ?? []), ...options.readMemoryIds]),
    ];
    const provenance: JsonObject = { [readMemoryIdsKey]: knew };
    if (options.supersedes.length > 0) provenance[supersedesMemoryIdsKey] = [...options.supersedes];
    const episode = await this.#store.createEpisode({
      subjectId: this.#subjectId,
      source: callerId,
      type: kind,
      payload,
      // Only a named class is written: an episode without one is an agent's (the default), as
      // every episode written before authority existed is.
      ...(options.authority !== undefined
        ? { metadata: { [authorityKey]: options.authority } }
        : {}),
      provenance,
      ...(options.idempotencyKey === undefined ? {} : { idempotencyKey: options.idempotencyKey }),
    });
    const compiled = await this.#store.compileMemories(this.#subjectId);
    const memories = compiled.memories.filter((memory) =>
      memory.sourceEpisodeIds.includes(episode.id),
    );
    if (memories.length > 0 || options.idempotencyKey === undefined) return { episode, memories };
    // The key was used before: the episode is the first call's, compiled then.
    return { episode, memories: await this.#memoriesOf(episode) };
  }

  /** The memories compiled from `episode`, whatever their status (the timeline has them all). */
  async #memoriesOf(episode: Episode): Promise<Memory[]> {
    const timeline = await this.#wholeTimeline();
    return timeline.memories.filter((memory) => memory.sourceEpisodeIds.includes(episode.id));
  }

  /**
   * The active memory `memoryId` and its target, for a supersede by id or a retraction; or, when it
   * is no longer active because `callerId` replaced it under the same idempotency key (a retry),
   * that earlier call's result.
   */
  async #replaceable(
    callerId: string,
    memoryId: string,
    idempotencyKey: string | undefined,
  ): Promise<{ memory: Memory; target: string } | { done: DecideResult }> {
    const timeline = await this.#wholeTimeline();
    const history = decisionHistory(timeline, memoryId);
    if (history === undefined) throw notFound(memoryId, this.#subjectId);
    const { memory, supersededBy } = history;
    if (memory.status !== "active") {
      if (idempotencyKey !== undefined && supersededBy?.agentId === callerId) {
        const replacement = timeline.memories.find((other) => other.id === supersededBy.memoryId);
        const episodeId = replacement?.sourceEpisodeIds[0];
        const episode = timeline.episodes.find((other) => other.id === episodeId);
        if (replacement !== undefined && episode !== undefined) {
          return { done: { episode, memories: [replacement] } };
        }
      }
      const by = supersededBy
        ? ` by ${supersededBy.agentId} (${supersededBy.memoryId}: ${JSON.stringify(supersededBy.content)})`
        : "";
      throw new DecisionLifecycleError(
        memoryId,
        "not-active",
        `${memoryId} is no longer active: it was ${history.status}${by}; supersede or retract the active one instead`,
      );
    }
    const target = targetOf(memory);
    if (target === undefined) {
      throw new DecisionLifecycleError(
        memoryId,
        "no-target",
        `${memoryId} has no target, and a memory is replaced only within its kind and target: publish decisions with a target to supersede or retract them by id`,
      );
    }
    return { memory, target };
  }

  /** Every episode and memory of the subject, oldest first, page by page. */
  async #wholeTimeline(): Promise<Timeline> {
    return readWholeTimeline(this.#store, this.#subjectId, { maxPages: timelineMaxPages });
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
    const decisions = await this.#store.searchMemories(this.#subjectId, {
      kind: "architectural_decision",
      limit: 100,
    });
    return this.#contradictionsAmong(decisions, new Map([["architectural_decision", decisions]]));
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
    const readers: string[] = [];
    for (const [callerId, reads] of this.#reads) {
      if (reads.delete(superseded.id)) readers.push(callerId);
    }
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
    for (const [callerId, reads] of this.#reads) {
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
    const candidates = await this.#store.searchMemories(this.#subjectId, {
      kind: memory.kind,
      limit: 100,
    });
    const sameTarget = candidates.filter((candidate) => targetOf(candidate) === target);
    return (
      sameTarget.find((candidate) => candidate.metadata[retractsKey] === memory.id) ?? sameTarget[0]
    );
  }

  #onEscalation(escalation: Escalation): void {
    if (escalation.resolution !== undefined) return;
    const names = escalation.contenders.map((contender) => contender.agentId);
    for (const [callerId, reads] of this.#reads) {
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
