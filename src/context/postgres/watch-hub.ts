import { deliverPage, deliveryPage, type FeedChange, type WatchCursor } from "../change-feed.js";
import type { StoreChange, Subscription, WatchOptions } from "../context-store.js";

/** What the hub needs from the store. */
export interface PostgresChangeSource {
  /**
   * Where a watch started at `since` (an ISO time of the store's clock, the one `created_at` and
   * `updated_at` are written with) begins: just before the subject's first episode created, and
   * its first memory changed, at or after `since`; the newest committed ones when there are none.
   * A watch's cursor is read over the network, after the call returned: a cursor at "the end as
   * it is when the read answers" would skip what other replicas wrote in between.
   */
  cursors(tenant: string, subjectId: string, since: string): Promise<WatchCursor>;
  /** Changes after the cursor, oldest first: at most `limit` episodes, then at most `limit` memory changes. */
  changesAfter(
    tenant: string,
    subjectId: string,
    after: WatchCursor,
    limit: number,
  ): Promise<FeedChange[]>;
  /**
   * Starts listening for other replicas' commits (LISTEN); `onChange(key)` for each one,
   * `onReconnect()` after a gap in which notifications may have been lost. Returns a stop function.
   */
  listen(
    onChange: (key: string) => void,
    onReconnect: () => void,
    onError: (error: unknown) => void,
  ): () => void;
}

interface Watcher {
  tenant: string;
  subjectId: string;
  key: string;
  listener: (change: StoreChange) => void;
  onError: ((error: unknown) => void) | undefined;
  cursor: WatchCursor | undefined;
  /** When `watch` was called, by the store's clock: what it delivers was written from then on. */
  since: string;
  running: Promise<void> | undefined;
  dirty: boolean;
  closed: boolean;
}

/**
 * The change feed behind `PostgresStore.watch`. Each watcher keeps cursors into the subject's
 * episode sequence and memory change sequence (both commit in order, see `schema.ts`) and
 * catches up from the database when told something changed: at once after a write through this
 * store, on a NOTIFY from any other replica, and on a slow fallback poll (a NOTIFY is lost while
 * the listening connection is down). Deliveries are in order, none skipped or repeated.
 */
export class PostgresWatchHub {
  readonly #source: PostgresChangeSource;
  readonly #pollIntervalMs: number;
  readonly #watchers = new Set<Watcher>();
  readonly #starting = new Set<Promise<void>>();
  #stopListening: (() => void) | undefined;
  #timer: ReturnType<typeof setInterval> | undefined;

  readonly #now: () => Date;

  /** `now` must be the clock the store writes `created_at`/`updated_at` with. */
  constructor(source: PostgresChangeSource, options: { pollIntervalMs: number; now?: () => Date }) {
    this.#source = source;
    this.#pollIntervalMs = options.pollIntervalMs;
    this.#now = options.now ?? (() => new Date());
  }

  /**
   * Settles when every watch started so far knows its starting cursor. Writes through the store
   * wait for it, so a watch started before a write (in program order) always sees that write.
   */
  settled(): Promise<void> {
    // No shortcut for none starting: Promise.all([]) settles at once too (a microtask later).
    return Promise.all([...this.#starting]).then(() => undefined);
  }

  watch(
    tenant: string,
    subjectId: string,
    key: string,
    listener: (change: StoreChange) => void,
    options: WatchOptions = {},
  ): Subscription {
    const watcher: Watcher = {
      tenant,
      subjectId,
      key,
      listener,
      onError: options.onError,
      cursor: options.replay ? { episode: 0, memory: 0 } : undefined,
      since: this.#now().toISOString(),
      running: undefined,
      dirty: false,
      closed: false,
    };
    this.#watchers.add(watcher);
    this.#startListening();
    if (options.replay) {
      queueMicrotask(() => this.#catchUp(watcher));
    } else {
      const start = this.#source
        .cursors(tenant, subjectId, watcher.since)
        .then(
          (cursor) => {
            watcher.cursor = cursor;
            // A change noticed while the cursor was being read: look now.
            if (watcher.dirty) this.#catchUp(watcher);
          },
          (error: unknown) => {
            // No cursor: the next catch-up tries again (from the same start).
            if (!watcher.closed) watcher.onError?.(error);
          },
        )
        .finally(() => this.#starting.delete(start));
      this.#starting.add(start);
    }
    return {
      // Closing twice is harmless: the second delete finds nothing and #stop is idempotent.
      close: () => {
        watcher.closed = true;
        this.#watchers.delete(watcher);
        if (this.#watchers.size === 0) this.#stop();
      },
    };
  }

  /** Something changed in the subject with this key (a local commit or a NOTIFY). */
  notify(key: string): void {
    for (const watcher of this.#watchers) {
      if (watcher.key === key) this.#catchUp(watcher);
    }
  }

  /** Every watcher looks again (after a reconnect, or on the fallback poll). */
  notifyAll(): void {
    for (const watcher of [...this.#watchers]) this.#catchUp(watcher);
  }

  /** Stops every watcher and the LISTEN connection. */
  close(): void {
    for (const watcher of this.#watchers) watcher.closed = true;
    this.#watchers.clear();
    this.#stop();
  }

  #catchUp(watcher: Watcher): void {
    if (watcher.closed) return;
    if (watcher.running !== undefined || watcher.cursor === undefined) {
      // Delivering already (finish, then look again), or the cursor is still being read.
      watcher.dirty = true;
      // Not delivering, so the cursor is what is missing (we only get here without one, or while
      // running): its read failed, so read it again.
      if (watcher.running === undefined && !this.#isStarting()) {
        this.#retryCursor(watcher);
      }
      return;
    }
    watcher.running = this.#deliver(watcher).finally(() => {
      watcher.running = undefined;
    });
  }

  #isStarting(): boolean {
    return this.#starting.size > 0;
  }

  #retryCursor(watcher: Watcher): void {
    watcher.running = this.#source
      .cursors(watcher.tenant, watcher.subjectId, watcher.since)
      .then(
        (cursor) => {
          watcher.cursor = cursor;
        },
        (error: unknown) => {
          if (!watcher.closed) watcher.onError?.(error);
        },
      )
      .finally(() => {
        watcher.running = undefined;
      });
  }

  async #deliver(watcher: Watcher): Promise<void> {
    try {
      // Set by every pass before the loop condition reads it.
      let full: boolean;
      do {
        watcher.dirty = false;
        const cursor = watcher.cursor;
        if (cursor === undefined) return;
        const changes = await this.#source.changesAfter(
          watcher.tenant,
          watcher.subjectId,
          cursor,
          deliveryPage,
        );
        full = deliverPage(watcher, () => cursor, changes);
      } while ((watcher.dirty || full) && !watcher.closed);
    } catch (error) {
      if (!watcher.closed) watcher.onError?.(error);
    }
  }

  #startListening(): void {
    if (this.#stopListening !== undefined) return;
    this.#stopListening = this.#source.listen(
      (key) => this.notify(key),
      () => this.notifyAll(),
      (error) => {
        for (const watcher of this.#watchers) watcher.onError?.(error);
      },
    );
    this.#timer = setInterval(() => this.notifyAll(), this.#pollIntervalMs);
    // Watching must never keep a finished process alive.
    this.#timer.unref();
  }

  #stop(): void {
    this.#stopListening?.();
    this.#stopListening = undefined;
    // clearInterval(undefined) does nothing.
    clearInterval(this.#timer);
    this.#timer = undefined;
  }
}
