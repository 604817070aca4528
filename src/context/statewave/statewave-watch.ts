import type {
  ChangePage,
  Episode,
  Memory,
  StoreChange,
  Subscription,
  Timeline,
  WatchOptions,
} from "../context-store.js";

/** A timeline page, as `GET /v1/timeline?subject_id&limit&offset` returns it. */
export type FetchTimelinePage = (
  offset: number,
  limit: number,
  signal: AbortSignal,
) => Promise<Timeline>;

/** The whole timeline in one read, or `undefined` when it must be paged with {@link FetchTimelinePage}. */
export type ReadWholeTimeline = (
  signal: AbortSignal,
) => Promise<{ episodes: readonly Episode[]; memories: readonly Memory[] } | undefined>;

/**
 * The server's change feed (`serve`'s `GET /v1/changes`): what changed after `cursor`, or
 * `undefined` when the server has none (a real Statewave v0.7.1), and the watch polls the timeline.
 */
export type ReadChanges = (
  cursor: string | null,
  signal: AbortSignal,
) => Promise<ChangePage | undefined>;

/**
 * A quiet subject is polled less often: each round that found nothing doubles the wait, up to
 * 2^3 = 8 times the interval (800 ms at the default 100); a change, or a write through this store
 * (`pollNow`), brings it back. What this process writes is seen at once either way.
 */
const maxIdleDoublings = 3;

/** Page size of the watch's timeline reads. */
const pageSize = 1000;

function memorySignature(memory: Memory): string {
  const validTo = memory.validTo ?? "";
  return `${memory.status}|${validTo}|${memory.updatedAt}`;
}

/** When a change was written: an episode's creation, a memory's last update (ISO text). */
function changeTime(change: StoreChange): string {
  return change.type === "episode" ? change.episode.createdAt : change.memory.updatedAt;
}

/** How a subscriber joins a shared poller. */
export interface SubscribeOptions extends WatchOptions {
  /**
   * Told, once, what the poller had seen before this subscriber joined (whether or not `replay`
   * delivers it), just before live delivery starts: a layer above can build its state from it.
   */
  onHistory?: (history: readonly StoreChange[]) => void;
}

/** One subscriber of a shared poller. */
interface Subscriber {
  listener: (change: StoreChange) => void;
  onError: ((error: unknown) => void) | undefined;
}

/**
 * `StatewaveClient.watch`: ONE poller per subject and client, however many subscribers (issue 12),
 * following the subject by polling `GET /v1/timeline`. New episodes are
 * read from an offset (the episode sequence is append-only); memories are re-read in full each
 * round, because compile changes old ones (status `superseded`, `valid_to`). Everything is also
 * de-duplicated by id, so a server that ignores `offset` still delivers each episode once.
 *
 * A real Statewave v0.7.1 ignores `limit`/`offset` and returns only the OLDEST 100 episodes and
 * memories (contract §5.7), so against it a watch sees nothing past the 100th episode.
 */
export class TimelineWatch {
  readonly subjectId: string;
  readonly #fetchPage: FetchTimelinePage;
  readonly #readAll: ReadWholeTimeline | undefined;
  /** The change feed, until the server is found to have none. */
  #readChanges: ReadChanges | undefined;
  /** Where the feed stands: its last answer's cursor (null: from the start). */
  #feedCursor: string | null = null;
  readonly #subscribers = new Set<Subscriber>();
  /** Subscribers waiting for the baseline: they count, so a close cannot stop the poller under them. */
  readonly #joining = new Set<Subscriber>();
  /** Every change seen since the poller started, baseline included, for `replay` subscribers. */
  readonly #history: StoreChange[] = [];
  readonly #pollIntervalMs: number;
  readonly #abort = new AbortController();
  readonly #seenEpisodes = new Set<string>();
  readonly #memories = new Map<string, string>();
  #episodeOffset = 0;
  #chain: Promise<void>;
  /** Timer rounds in a row that found nothing: each doubles the wait, up to 8x the interval. */
  #idleRounds = 0;
  /** Whether a timer round is set and has not fired yet. */
  #timerArmed = false;
  /** The round queued by `pollNow` that has not started yet. */
  #waiting: Promise<void> | undefined;
  readonly #baseline: Promise<void>;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #closed = false;
  readonly #now: () => number;

  constructor(options: {
    subjectId: string;
    fetchPage: FetchTimelinePage;
    /** Reads everything in one call when it can (answers `undefined` otherwise): one read per round. */
    readAll?: ReadWholeTimeline;
    /**
     * The server's change feed: each round asks only what changed since its last cursor (one
     * request, an answer as large as the change) instead of re-reading the memories.
     */
    readChanges?: ReadChanges;
    pollIntervalMs: number;
    /**
     * The clock a subscriber's start is taken from, compared with the server's `created_at` /
     * `updated_at` (see `subscribe`). @default Date.now
     */
    now?: () => number;
  }) {
    this.#now = options.now ?? Date.now;
    this.subjectId = options.subjectId;
    this.#fetchPage = options.fetchPage;
    this.#readAll = options.readAll;
    this.#readChanges = options.readChanges;
    this.#pollIntervalMs = options.pollIntervalMs;
    // The first round records what exists; subscribers asking for a replay get it from history.
    // The first read finds only history: it says nothing about whether the subject is quiet.
    this.#baseline = this.#round().finally(() => {
      this.#idleRounds = 0;
      this.#schedule();
    });
    this.#chain = this.#baseline;
  }

  /** Subscribers left; the owner closes the poller when the last one leaves. */
  get size(): number {
    return this.#subscribers.size + this.#joining.size;
  }

  /**
   * Adds a subscriber once the baseline is read: with `replay`, everything seen so far is delivered
   * first, synchronously, then the live changes, so nothing is missed or delivered twice; without
   * it, what the poller has seen that was written since this call (by the server's times).
   * @returns the function that removes it
   */
  subscribe(listener: (change: StoreChange) => void, options: SubscribeOptions): () => void {
    const subscriber: Subscriber = { listener, onError: options.onError };
    // The baseline answers over the network, after this call returned: what was written in
    // between is in it, so it is delivered by time (written at or after this call), not dropped
    // as history. The times are the server's, in milliseconds: a write in the very millisecond
    // of the call counts as after it, and a client whose clock runs ahead of the server's can
    // miss writes of that first moment.
    const since = new Date(this.#now()).toISOString();
    this.#joining.add(subscriber);
    void this.#baseline.then(() => {
      // Not joining any more: it was removed before the baseline was read.
      if (!this.#joining.delete(subscriber) || this.#closed) return;
      const history = [...this.#history];
      if (options.onHistory) {
        try {
          options.onHistory(history);
        } catch (error) {
          subscriber.onError?.(error);
        }
      }
      for (const change of history) {
        if (options.replay || changeTime(change) >= since) this.#deliver(subscriber, change);
      }
      this.#subscribers.add(subscriber);
    });
    return () => {
      this.#joining.delete(subscriber);
      this.#subscribers.delete(subscriber);
    };
  }

  #deliver(subscriber: Subscriber, change: StoreChange): void {
    try {
      subscriber.listener(change);
    } catch (error) {
      subscriber.onError?.(error);
    }
  }

  /** Settles when the first round (the baseline, or the replay) is done. Never rejects. */
  get ready(): Promise<void> {
    return this.#baseline;
  }

  /**
   * Polls now (after any round in progress) and settles when that round is done. Never rejects.
   * Calls while a round waits to start share it: it starts after each of them, so it sees what
   * each caller wrote before calling (a burst of writes costs one round, not one each).
   */
  pollNow(): Promise<void> {
    // Someone wrote: the subject is busy again, so the timer goes back to its interval (a timer
    // waiting out a long idle wait is set again; one whose round runs sets itself afterwards).
    this.#idleRounds = 0;
    if (this.#timerArmed) {
      clearTimeout(this.#timer);
      this.#schedule();
    }
    return this.#poll();
  }

  #poll(): Promise<void> {
    if (this.#waiting !== undefined) return this.#waiting;
    const round = this.#chain.then(() => {
      this.#waiting = undefined;
      return this.#round();
    });
    this.#waiting = round;
    this.#chain = round;
    return round;
  }

  /**
   * The subject was deleted through this client: read episodes from the start again (ids already
   * delivered are still skipped). A deletion by another process is not noticed.
   */
  reset(): void {
    this.#episodeOffset = 0;
    this.#feedCursor = null;
  }

  /** Stops polling and cancels the request in flight. Idempotent. */
  close(): void {
    this.#closed = true;
    clearTimeout(this.#timer);
    this.#abort.abort();
  }

  #schedule(): void {
    if (this.#closed) return;
    this.#timerArmed = true;
    this.#timer = setTimeout(
      () => {
        this.#timerArmed = false;
        this.#poll().finally(() => this.#schedule());
      },
      this.#pollIntervalMs * 2 ** Math.min(this.#idleRounds, maxIdleDoublings),
    );
    // A forgotten watch must not keep a finished process alive (the embedded store does the same).
    this.#timer.unref?.();
  }

  async #round(): Promise<void> {
    if (this.#closed) return;
    try {
      const changes = (await this.#fedChanges()) ?? (await this.#polledChanges());
      this.#idleRounds = changes.length === 0 ? this.#idleRounds + 1 : 0;
      for (const change of changes) {
        this.#history.push(change);
        for (const subscriber of [...this.#subscribers]) {
          if (this.#closed) return;
          this.#deliver(subscriber, change);
        }
      }
    } catch (error) {
      if (this.#closed) return;
      for (const subscriber of [...this.#subscribers]) subscriber.onError?.(error);
    }
  }

  /**
   * What changed since the feed's cursor, page after page while it has more; `undefined` when the
   * server has no feed (found once: from then on the watch polls the timeline).
   */
  async #fedChanges(): Promise<StoreChange[] | undefined> {
    const changes: StoreChange[] = [];
    for (;;) {
      const read = this.#readChanges;
      if (read === undefined) return undefined;
      const page = await read(this.#feedCursor, this.#abort.signal);
      if (page === undefined) {
        this.#readChanges = undefined;
        return undefined;
      }
      this.#feedCursor = page.cursor;
      // Each change once, as the polled path delivers it: an episode by id, a memory by state.
      const fresh = page.changes.filter((change) =>
        change.type === "episode"
          ? this.#unseen([change.episode]).length > 0
          : this.#changed([change.memory]).length > 0,
      );
      changes.push(...fresh);
      if (!page.hasMore) return changes;
    }
  }

  /** New episodes and changed memories, read from the timeline (every memory, every round). */
  async #polledChanges(): Promise<StoreChange[]> {
    const whole = await this.#readAll?.(this.#abort.signal);
    const episodes = whole ? this.#unseen(whole.episodes) : await this.#newEpisodes();
    const memories = whole ? this.#changed(whole.memories) : await this.#changedMemories();
    return [
      ...episodes.map((episode): StoreChange => ({ type: "episode", episode })),
      ...memories.map((memory): StoreChange => ({ type: "memory", memory })),
    ];
  }

  #unseen(episodes: readonly Episode[]): Episode[] {
    const fresh = episodes.filter((episode) => !this.#seenEpisodes.has(episode.id));
    for (const episode of fresh) this.#seenEpisodes.add(episode.id);
    return fresh;
  }

  #changed(memories: readonly Memory[]): Memory[] {
    return memories.filter((memory) => {
      const signature = memorySignature(memory);
      if (this.#memories.get(memory.id) === signature) return false;
      this.#memories.set(memory.id, signature);
      return true;
    });
  }

  async #newEpisodes(): Promise<Episode[]> {
    const fresh: Episode[] = [];
    for (;;) {
      const page = await this.#fetchPage(this.#episodeOffset, pageSize, this.#abort.signal);
      for (const episode of page.episodes) {
        if (this.#seenEpisodes.has(episode.id)) continue;
        this.#seenEpisodes.add(episode.id);
        fresh.push(episode);
      }
      this.#episodeOffset += page.episodes.length;
      if (page.episodes.length < pageSize) return fresh;
    }
  }

  async #changedMemories(): Promise<Memory[]> {
    const changed: Memory[] = [];
    for (let offset = 0; ; offset += pageSize) {
      const page = await this.#fetchPage(offset, pageSize, this.#abort.signal);
      for (const memory of page.memories) {
        const signature = memorySignature(memory);
        if (this.#memories.get(memory.id) === signature) continue;
        this.#memories.set(memory.id, signature);
        changed.push(memory);
      }
      if (page.memories.length < pageSize) return changed;
    }
  }
}

/**
 * Joins the subject's shared poller in `pollers`, starting one with `start` when it has none. The
 * subscription's close leaves it; the poller is closed and dropped once nobody is subscribed or
 * still waiting for its baseline, if it is still the subject's (after its owner's `close()` it is
 * not). Idempotent: leaving again changes nothing. The Statewave client's and store's watches.
 */
export function joinSharedPoller(
  pollers: Map<string, TimelineWatch>,
  subjectId: string,
  start: () => TimelineWatch,
  listener: (change: StoreChange) => void,
  options: SubscribeOptions,
): Subscription {
  let poller = pollers.get(subjectId);
  if (poller === undefined) {
    poller = start();
    pollers.set(subjectId, poller);
  }
  const shared = poller;
  const unsubscribe = shared.subscribe(listener, options);
  return {
    close: () => {
      unsubscribe();
      void shared.ready.then(() => {
        if (shared.size > 0 || pollers.get(subjectId) !== shared) return;
        shared.close();
        pollers.delete(subjectId);
      });
    },
  };
}
