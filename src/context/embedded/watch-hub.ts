import { deliverPage, deliveryPage, type FeedChange, type WatchCursor } from "../change-feed.js";
import type { StoreChange, Subscription, WatchOptions } from "../context-store.js";

/** What the hub needs from the store: rows after a cursor, in order, and the current cursors. */
export interface ChangeSource {
  /** Where a new watcher of the subject starts: its newest episode, the newest memory change. */
  cursors(tenantId: string | null, subjectId: string): WatchCursor;
  /**
   * Changes of one subject after the cursors, oldest first, with the cursor each one moves to:
   * at most `limit` episodes, then at most `limit` memory changes.
   */
  changesAfter(
    tenantId: string | null,
    subjectId: string,
    after: WatchCursor,
    limit: number,
  ): FeedChange[];
  /** A number that moves when another connection (process) commits: `PRAGMA data_version`. */
  dataVersion(): number;
}

interface Watcher {
  tenantId: string | null;
  subjectId: string;
  listener: (change: StoreChange) => void;
  onError: ((error: unknown) => void) | undefined;
  cursor: WatchCursor;
  delivering: boolean;
  /** A write landed while this watcher was delivering: catch up again before returning. */
  dirty: boolean;
  closed: boolean;
}

/**
 * The change feed behind `watch`. Each watcher keeps cursors into the episode sequence and the
 * memory change sequence and catches up from the database, so in-process writes (delivered
 * right after commit) and other processes' writes (found by polling `data_version`) arrive in
 * one order, with none skipped or repeated.
 */
export class WatchHub {
  readonly #source: ChangeSource;
  readonly #pollIntervalMs: number;
  readonly #crossProcess: boolean;
  readonly #watchers = new Set<Watcher>();
  #timer: ReturnType<typeof setInterval> | undefined;
  #lastDataVersion = 0;

  constructor(source: ChangeSource, options: { pollIntervalMs: number; crossProcess: boolean }) {
    this.#source = source;
    this.#pollIntervalMs = options.pollIntervalMs;
    this.#crossProcess = options.crossProcess;
  }

  /** Registers a listener. With `replay`, existing rows are delivered first, on a microtask. */
  watch(
    tenantId: string | null,
    subjectId: string,
    listener: (change: StoreChange) => void,
    options: WatchOptions = {},
  ): Subscription {
    const watcher: Watcher = {
      tenantId,
      subjectId,
      listener,
      onError: options.onError,
      cursor: options.replay
        ? { episode: 0, memory: 0 }
        : this.#source.cursors(tenantId, subjectId),
      delivering: false,
      dirty: false,
      closed: false,
    };
    this.#watchers.add(watcher);
    if (options.replay) queueMicrotask(() => this.#catchUp(watcher));
    this.#startPolling();
    return {
      close: () => {
        watcher.closed = true;
        this.#watchers.delete(watcher);
        if (this.#watchers.size === 0) this.#stopPolling();
      },
    };
  }

  /** Called right after this process committed a write to the subject. */
  notify(tenantId: string | null, subjectId: string): void {
    for (const watcher of this.#watchersOf(tenantId, subjectId)) this.#catchUp(watcher);
  }

  /**
   * A subject was deleted here: its watchers start again from the beginning, since every
   * episode written to it from now on is new (and may reuse a deleted seq).
   */
  reset(tenantId: string | null, subjectId: string): void {
    const cursor = this.#source.cursors(tenantId, subjectId);
    for (const watcher of this.#watchersOf(tenantId, subjectId)) {
      watcher.cursor = { episode: 0, memory: cursor.memory };
    }
  }

  /** The subject's watchers, read lazily from the live set (as a plain loop over it would). */
  *#watchersOf(tenantId: string | null, subjectId: string): Generator<Watcher> {
    for (const watcher of this.#watchers) {
      if (watcher.tenantId === tenantId && watcher.subjectId === subjectId) yield watcher;
    }
  }

  /** Stops every watcher and the timer. */
  close(): void {
    for (const watcher of this.#watchers) watcher.closed = true;
    this.#watchers.clear();
    this.#stopPolling();
  }

  /** One polling tick: if another connection committed, every watcher catches up. */
  poll(): void {
    const version = this.#source.dataVersion();
    if (version === this.#lastDataVersion) return;
    this.#lastDataVersion = version;
    for (const watcher of [...this.#watchers]) this.#catchUp(watcher);
  }

  #catchUp(watcher: Watcher): void {
    // A closed watcher needs no early return here: the loop below checks `closed` before each
    // delivery and stops the paging.
    if (watcher.delivering) {
      // A listener wrote to its own subject: finish this round first, then look again.
      watcher.dirty = true;
      return;
    }
    watcher.delivering = true;
    try {
      let full: boolean;
      do {
        watcher.dirty = false;
        // Pages, so replaying a 100k-episode subject never loads it all at once.
        const changes = this.#source.changesAfter(
          watcher.tenantId,
          watcher.subjectId,
          watcher.cursor,
          deliveryPage,
        );
        full = deliverPage(watcher, () => watcher.cursor, changes);
      } while ((watcher.dirty || full) && !watcher.closed);
    } catch (error) {
      watcher.onError?.(error);
    } finally {
      watcher.delivering = false;
    }
  }

  #startPolling(): void {
    if (!this.#crossProcess || this.#timer !== undefined) return;
    this.#lastDataVersion = this.#source.dataVersion();
    this.#timer = setInterval(() => this.poll(), this.#pollIntervalMs);
    // Watching must never keep a finished process alive.
    this.#timer.unref();
  }

  #stopPolling(): void {
    // clearInterval(undefined) does nothing, so no guard is needed when polling never started.
    clearInterval(this.#timer);
    this.#timer = undefined;
  }
}
