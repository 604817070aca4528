import { randomBytes } from "node:crypto";
import type { ContextStore, Subscription } from "../context/context-store.js";
import type { Disputed } from "./disputed.js";
import { SharedStateClosedError } from "./errors/shared-state-closed-error.js";
import type { Escalation } from "./escalation.js";
import type { NamespaceSchema } from "./field-kind.js";
import {
  escalationEpisode,
  resolutionEpisode,
  snapshotEpisode,
  updateEpisode,
} from "./state-episodes.js";
import { type RaisedEscalation, StateReplica } from "./state-replica.js";
import { TimelineSync } from "./timeline-sync.js";

export type { Contender } from "./disputed.js";
export { Disputed } from "./disputed.js";
export type { Escalation, EscalationReason } from "./escalation.js";
export type { FieldKind, NamespaceSchema } from "./field-kind.js";

/** Options of `SharedState.open`. */
export interface OpenSharedStateOptions {
  /** Where updates travel and persist: an `EmbeddedStore`, a `StatewaveClient`, any `ContextStore`. */
  store: ContextStore;
  /** The subject whose shared state this is (one state per subject). */
  subjectId: string;
  /** The agent this replica writes as (`actingAs` writes as others). */
  agentId: string;
  /** Declared field kinds per namespace; undeclared fields are inferred (see `inferFieldKind`). */
  schema?: Record<string, NamespaceSchema>;
  /** @default Date.now */
  now?: () => number;
  /** Loro peer id; must be unique per replica. @default a random 64-bit id */
  peerId?: bigint | number;
  /** Follow other replicas through store.watch. @default true */
  live?: boolean;
  /** Write a `state_snapshot` episode after this many updates since the last one. @default 200 */
  snapshotEvery?: number;
  /**
   * Called when a background step fails (importing a malformed update, announcing an escalation)
   * or an `onChange`/`onEscalation` listener throws (the other listeners still run).
   * @default ignore
   */
  onError?: (error: unknown) => void;
  /**
   * Registered before anything is loaded, so it also hears the escalations raised while `open()`
   * imports the timeline (an `onEscalation` registered after `open()` resolves hears only later
   * ones; `escalations()` lists the earlier ones). @default none
   */
  onEscalation?: (escalation: Escalation) => void;
  /**
   * How long a replica that raised an escalation, but did not write its last contender, waits
   * for that writer's announcement before announcing it itself (see `#escalated`). `close()`
   * cuts the wait short. @default 1000
   */
  announceGraceMs?: number;
  /** Waits `ms`, or until `signal` aborts. @default a `setTimeout` */
  delay?: (ms: number, signal: AbortSignal) => Promise<void>;
}

function defaultDelay(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) {
      resolve();
      return;
    }
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    }
    signal.addEventListener("abort", done, { once: true });
  });
}

/** A change applied to the state, local or from another replica. */
export interface SharedStateChange {
  namespace: string;
  key: string;
  agentId: string;
  local: boolean;
}

/**
 * Shared state that merges concurrent writes: one Loro replica per agent, synced through a
 * `ContextStore` as `state_update` episodes. Mergeable fields (sets, text, maps, counters) merge;
 * concurrent different register values and kind mismatches become escalations; every value is
 * attributed to the agent that wrote it.
 *
 * @example
 * const state = await SharedState.open({ store, subjectId: "run-1", agentId: "architect" });
 * await state.put("plan", "auth", "RS256 JWT");
 * const auth = state.get("plan", "auth");
 * if (auth instanceof Disputed) await state.resolve(auth.escalationId, "RS256 JWT", { by: "lead" });
 */
export class SharedState {
  readonly agentId: string;
  readonly subjectId: string;
  readonly #store: ContextStore;
  readonly #replica: StateReplica;
  readonly #timeline: TimelineSync;
  readonly #onError: (error: unknown) => void;
  readonly #now: () => number;
  readonly #announced = new Set<string>();
  readonly #escalationListeners = new Set<(escalation: Escalation) => void>();
  readonly #background = new Set<Promise<unknown>>();
  #backgroundError: unknown;
  #subscription: Subscription | undefined;
  #publishChain: Promise<void> = Promise.resolve();
  #publishedCounter = 0;
  readonly #announceGraceMs: number;
  readonly #delay: (ms: number, signal: AbortSignal) => Promise<void>;
  /** Aborted by `close()`: a replica that stops announces what it waited on at once. */
  readonly #closing = new AbortController();
  /** Announcements waiting out the grace period: not part of `sync()`, awaited by `close()`. */
  readonly #graceWaits = new Set<Promise<void>>();
  #closed = false;

  private constructor(options: OpenSharedStateOptions) {
    this.agentId = options.agentId;
    this.subjectId = options.subjectId;
    this.#store = options.store;
    this.#onError = options.onError ?? (() => {});
    this.#now = options.now ?? Date.now;
    this.#announceGraceMs = Math.max(0, options.announceGraceMs ?? 1000);
    this.#delay = options.delay ?? defaultDelay;
    this.#replica = new StateReplica({
      subjectId: options.subjectId,
      peerId: options.peerId ?? randomPeerId(),
      schema: options.schema,
      now: this.#now,
      // A throwing listener is reported; the import or publish that called it goes on.
      onError: (error) => this.#onError(error),
    });
    this.#timeline = new TimelineSync({
      store: options.store,
      subjectId: options.subjectId,
      replica: this.#replica,
      snapshotEvery: Math.max(1, options.snapshotEvery ?? 200),
      onError: (error) => this.#onError(error),
      onAnnouncement: (escalationId) => this.#announced.add(escalationId),
    });
    this.#replica.onEscalation((raised) => this.#escalated(raised));
    if (options.onEscalation) this.#escalationListeners.add(options.onEscalation);
  }

  /**
   * Opens this agent's replica of a subject's state: imports the latest snapshot and the updates
   * after it, then (when `live`) follows other replicas through `store.watch`.
   */
  static async open(options: OpenSharedStateOptions): Promise<SharedState> {
    const state = new SharedState(options);
    if (options.live ?? true) {
      state.#subscription = options.store.watch(
        options.subjectId,
        (change) => state.#timeline.onStoreChange(change),
        { onError: (error) => state.#onError(error) },
      );
    }
    await state.#load();
    return state;
  }

  /** This replica's Loro peer id. */
  get peerId(): string {
    return this.#replica.peer;
  }

  /**
   * Writes a value as this agent. Applied locally at once; resolves when the update episode is
   * stored. set: adds the elements; text: appends (a value that extends the current text appends
   * the rest); map: deep-merges; counter: adds the number; register: sets the value.
   * @throws InvalidStateValueError, FieldKindError, SharedStateClosedError
   */
  put(namespace: string, key: string, value: unknown): Promise<void> {
    return this.#put(this.agentId, namespace, key, value);
  }

  /** The merged value, a `Disputed` listing the contenders, or undefined when never written. */
  get(namespace: string, key: string): unknown | Disputed | undefined {
    return this.#replica.get(namespace, key);
  }

  /** Every field of a namespace. */
  list(namespace: string): Record<string, unknown | Disputed> {
    return this.#replica.list(namespace);
  }

  /** Writes attributed to another agent (for code that writes on behalf of several). */
  actingAs(agentId: string): {
    put(namespace: string, key: string, value: unknown): Promise<void>;
  } {
    return { put: (namespace, key, value) => this.#put(agentId, namespace, key, value) };
  }

  /**
   * Called once per escalation id, the first time this replica sees it. Escalations raised while
   * `open()` loaded the timeline are not replayed: read them with `escalations()`, or pass
   * `onEscalation` to `open()`.
   */
  onEscalation(listener: (escalation: Escalation) => void): () => void {
    this.#escalationListeners.add(listener);
    return () => this.#escalationListeners.delete(listener);
  }

  /** Any change applied (local or remote): namespace/key that changed and who wrote it. */
  onChange(listener: (change: SharedStateChange) => void): () => void {
    return this.#replica.onChange(listener);
  }

  /** Every escalation this replica knows, open or resolved, ordered by id. */
  escalations(): Escalation[] {
    return this.#replica.escalations();
  }

  /**
   * Resolves an escalation with `value`, attributed to `by`: every replica converges on it.
   * @throws UnknownEscalationError when this replica has not seen the escalation.
   */
  async resolve(escalationId: string, value: unknown, options: { by: string }): Promise<void> {
    this.#assertOpen();
    this.#replica.resolve(escalationId, value, options.by);
    await this.#publish(options.by);
    const escalation = this.escalations().find((candidate) => candidate.id === escalationId);
    if (escalation) {
      await this.#store.createEpisode(
        resolutionEpisode(escalation, value, options.by, this.#now()),
      );
    }
  }

  /** Which agent wrote each surviving element or value (shape per kind: see docs/crdt.md). */
  attribution(namespace: string, key: string): unknown {
    return this.#replica.attribution(namespace, key);
  }

  /** The whole state as JSON, identical on replicas that have seen the same writes. */
  toJSON(): Record<string, Record<string, unknown>> {
    return this.#replica.toJSON();
  }

  /** Waits for every pending publish and for the remote updates already seen in the store. */
  async sync(): Promise<void> {
    await this.#publishChain;
    await this.#timeline.catchUp();
    await this.#settleBackground();
  }

  /** Stops following the store after flushing pending publishes. Does not close the store. */
  async close(): Promise<void> {
    // Idempotent as it is: a second close finds no subscription and nothing pending.
    this.#closed = true;
    this.#closing.abort();
    this.#subscription?.close();
    this.#subscription = undefined;
    await this.#publishChain;
    await Promise.allSettled([...this.#graceWaits]);
    await Promise.allSettled([...this.#background]);
  }

  /** The replica, for tests and tools that inspect versions. */
  get replica(): StateReplica {
    return this.#replica;
  }

  async #put(agentId: string, namespace: string, key: string, value: unknown): Promise<void> {
    this.#assertOpen();
    this.#replica.write(agentId, namespace, key, value);
    await this.#publish(agentId);
  }

  #assertOpen(): void {
    if (this.#closed) throw new SharedStateClosedError(this.subjectId, this.agentId);
  }

  /** Publishes every own operation not yet stored, in order; a failed publish is retried by the next. */
  #publish(agentId: string): Promise<void> {
    const run = async (): Promise<void> => {
      const to = this.#replica.ownCounter();
      const from = this.#publishedCounter;
      if (to <= from) return;
      const update = this.#replica.exportOwn(from, to);
      const episode = await this.#store.createEpisode(
        updateEpisode(this.subjectId, agentId, { update, peer: this.#replica.peer, from, to }),
      );
      const snapshotDue = this.#timeline.notePublished(episode.id);
      this.#publishedCounter = Math.max(this.#publishedCounter, to);
      if (snapshotDue) {
        await this.#store.createEpisode(
          snapshotEpisode(this.subjectId, agentId, {
            snapshot: this.#replica.exportSnapshot(),
            peer: this.#replica.peer,
            version: this.#replica.version(),
          }),
        );
      }
    };
    const result = this.#publishChain.then(run);
    this.#publishChain = result.catch(() => {});
    return result;
  }

  async #load(): Promise<void> {
    await this.#timeline.load();
    // A reopened replica (same peer id) must not publish again what is already stored.
    this.#publishedCounter = this.#replica.ownCounter();
  }

  /*
   * Who announces an escalation (a `escalation` episode on the timeline, which compile turns into
   * the "disputed" memory that `getContext` shows): any replica that raises it, so that it is
   * announced even when the replica whose write completed the dispute exits before it imports the
   * competing write. The replica that wrote the last contender announces at once; any other one
   * waits `announceGraceMs` (cut short by `close()`), catches up with the timeline and announces
   * only if the escalation is still open and no announcement of that id is there by then. Two replicas may
   * still both announce when the first is slower than the grace period, or when one is killed
   * between its write and its read: every announcement carries one idempotency key per escalation
   * (`escalationAnnouncementKey`, from the deterministic escalation id), so the embedded and
   * Postgres stores and `serve` keep exactly one announcement episode. A store that ignores keys
   * (Statewave v0.7.1) may keep two; compile then makes the second supersede the first
   * (`supersedes`: same `escalationId`), so it still holds one active memory per escalation.
   */
  #escalated(raised: RaisedEscalation): void {
    const { escalation } = raised;
    // An escalation first seen already settled is not announced: its resolution tells the story,
    // and a late "disputed" memory would supersede the resolution that ended it. The replica
    // raises each id once, so only an announcement already on the timeline needs remembering.
    if (escalation.resolution === undefined && !this.#announced.has(escalation.id)) {
      if (raised.announcedHere) this.#announce(escalation);
      else {
        const waiting = this.#announceUnlessAnnounced(escalation.id).catch((error: unknown) =>
          this.#onError(error),
        );
        this.#graceWaits.add(waiting);
        void waiting.finally(() => this.#graceWaits.delete(waiting));
      }
    }
    for (const listener of [...this.#escalationListeners]) {
      try {
        listener(escalation);
      } catch (error) {
        this.#onError(error);
      }
    }
  }

  #announce(escalation: Escalation): void {
    this.#announced.add(escalation.id);
    this.#track(this.#store.createEpisode(escalationEpisode(escalation, this.agentId)));
  }

  async #announceUnlessAnnounced(escalationId: string): Promise<void> {
    // The last contender's writer usually announces within milliseconds: give it the chance, so
    // that in the common case one announcement is written, not one per replica.
    if (this.#announceGraceMs > 0 && !this.#closing.signal.aborted) {
      await this.#delay(this.#announceGraceMs, this.#closing.signal);
    }
    await this.#timeline.catchUp();
    if (this.#announced.has(escalationId)) return;
    const escalation = this.#replica.escalations().find((known) => known.id === escalationId);
    if (escalation === undefined || escalation.resolution !== undefined) return;
    this.#announce(escalation);
  }

  #track(promise: Promise<unknown>): void {
    const tracked = promise.then(
      () => {},
      (error: unknown) => {
        this.#backgroundError ??= error;
        this.#onError(error);
      },
    );
    this.#background.add(tracked);
    void tracked.finally(() => this.#background.delete(tracked));
  }

  async #settleBackground(): Promise<void> {
    await Promise.allSettled([...this.#background]);
    const error = this.#backgroundError;
    this.#backgroundError = undefined;
    if (error !== undefined) throw error;
  }
}

function randomPeerId(): bigint {
  return randomBytes(8).readBigUInt64BE(0);
}
