import type { ContextStore, Episode, StoreChange } from "../context/context-store.js";
import { readSnapshot, readUpdate, stateEpisodeTypes } from "./state-episodes.js";
import type { StateReplica } from "./state-replica.js";

/**
 * The inbound half of `SharedState`'s sync protocol: the subject's timeline read page by page (and
 * its watched episodes) imported into the replica. Kept apart from `SharedState` so that the
 * class reads as its public contract, and the paging, batching and snapshot bookkeeping read in
 * one place.
 */

/** Options of {@link TimelineSync}. */
export interface TimelineSyncOptions {
  store: ContextStore;
  subjectId: string;
  /** The replica the episodes are imported into. */
  replica: StateReplica;
  /** A snapshot is due after this many updates since the last one. */
  snapshotEvery: number;
  /** Called when an update cannot be imported (the others still are). */
  onError: (error: unknown) => void;
  /** Called with the escalation id of each announcement found on the timeline. */
  onAnnouncement: (escalationId: string) => void;
}

/** Timeline pages are read this many episodes at a time (Statewave's cap). */
const pageSize = 100;

/** The episodes opening a replica imports (see `#importFromLatestSnapshot`). */
const openingTypes: ReadonlySet<string> = new Set([
  stateEpisodeTypes.snapshot,
  stateEpisodeTypes.update,
  stateEpisodeTypes.escalation,
]);

/**
 * Reads a subject's timeline into one replica, each episode once: from where the last read
 * stopped, or as `store.watch` delivers them. Counts the updates since the latest snapshot,
 * whoever wrote them, so that the replica's publisher knows when a snapshot is due.
 */
export class TimelineSync {
  readonly #store: ContextStore;
  readonly #subjectId: string;
  readonly #replica: StateReplica;
  readonly #snapshotEvery: number;
  readonly #onError: (error: unknown) => void;
  readonly #onAnnouncement: (escalationId: string) => void;
  readonly #seenEpisodes = new Set<string>();
  #updatesSinceSnapshot = 0;
  #timelineOffset = 0;
  #pendingImports: Uint8Array[] = [];
  /** Timeline reads run one at a time: each continues from where the previous one stopped. */
  #readChain: Promise<void> = Promise.resolve();

  constructor(options: TimelineSyncOptions) {
    this.#store = options.store;
    this.#subjectId = options.subjectId;
    this.#replica = options.replica;
    this.#snapshotEvery = options.snapshotEvery;
    this.#onError = options.onError;
    this.#onAnnouncement = options.onAnnouncement;
  }

  /** Opening: imports the latest snapshot and only the updates it does not cover. */
  load(): Promise<void> {
    return this.#readTimeline(true);
  }

  /** Reads what the timeline gained since the last read and imports it at once. */
  async catchUp(): Promise<void> {
    await this.#readTimeline(false);
    this.flushImports();
  }

  /** A change `store.watch` delivered: an episode not seen yet is ingested. */
  onStoreChange(change: StoreChange): void {
    if (change.type !== "episode") return;
    this.#ingest(change.episode);
  }

  /**
   * Records an update episode this replica published (so that reading it back imports nothing).
   * @returns true when a snapshot is due after it (the count starts again).
   */
  notePublished(episodeId: string): boolean {
    this.#seenEpisodes.add(episodeId);
    this.#updatesSinceSnapshot++;
    if (this.#updatesSinceSnapshot < this.#snapshotEvery) return false;
    this.#updatesSinceSnapshot = 0;
    return true;
  }

  /** Imports every update ingested since the last flush, in one batch. */
  flushImports(): void {
    const batch = this.#pendingImports;
    this.#pendingImports = [];
    this.#importNow(batch);
  }

  /** Reads the timeline from where the last read stopped and imports what it has not seen. */
  #readTimeline(initial: boolean): Promise<void> {
    // Serialised: two reads from one offset would each advance it by what they read.
    const result = this.#readChain.then(() => this.#readTimelineNow(initial));
    this.#readChain = result.catch(() => {});
    return result;
  }

  async #readTimelineNow(initial: boolean): Promise<void> {
    const episodes = await this.#readNewEpisodes(initial);
    if (initial) this.#importFromLatestSnapshot(episodes);
    else for (const episode of episodes) this.#ingest(episode);
  }

  /**
   * The episodes after the offset, page by page, until a short page (or a repeated one). Opening
   * keeps only the replica's own (snapshots, updates, escalations), the others just marked seen:
   * a subject of 50,000 decisions is not held whole to find its few state episodes.
   */
  async #readNewEpisodes(initial: boolean): Promise<Episode[]> {
    const episodes: Episode[] = [];
    const read = new Set<string>();
    for (;;) {
      const page = await this.#store.getTimeline(this.#subjectId, {
        limit: pageSize,
        offset: this.#timelineOffset,
      });
      // A server that ignores `offset` (a real Statewave v0.7.1) answers every page with the same
      // episodes: a page starting with one already read here is that, not news, so stop.
      const first = page.episodes[0];
      if (first === undefined || read.has(first.id)) break;
      // The first id of each page is enough to know a page seen before.
      read.add(first.id);
      for (const episode of page.episodes) {
        if (!initial || openingTypes.has(episode.type)) episodes.push(episode);
        else this.#seenEpisodes.add(episode.id);
      }
      this.#timelineOffset += page.episodes.length;
      // A short page is the last one: asking again would only return an empty page.
      if (page.episodes.length < pageSize) break;
    }
    return episodes;
  }

  /** Opening: import the latest snapshot and only the updates it does not cover. */
  #importFromLatestSnapshot(episodes: readonly Episode[]): void {
    const snapshotIndex = episodes.findLastIndex(
      (episode) => episode.type === stateEpisodeTypes.snapshot,
    );
    // No snapshot: the index is -1, and `episodes[-1]` is undefined.
    const snapshot = episodes[snapshotIndex];
    const base = snapshot ? readSnapshot(snapshot) : undefined;
    const batch: Uint8Array[] = base ? [base.snapshot] : [];
    // The next snapshot is due after `snapshotEvery` updates since the latest one.
    this.#updatesSinceSnapshot += episodes
      .slice(snapshotIndex + 1)
      .filter((episode) => episode.type === stateEpisodeTypes.update).length;
    episodes.forEach((episode) => {
      this.#seenEpisodes.add(episode.id);
      if (episode.type === stateEpisodeTypes.escalation) this.#noteAnnouncement(episode);
      if (episode.type !== stateEpisodeTypes.update) return;
      const update = readUpdate(episode);
      if (!update) return;
      if (base && (base.version[update.peer] ?? 0) >= update.to) return;
      batch.push(update.update);
    });
    this.#importNow(batch);
  }

  #ingest(episode: Episode): void {
    if (this.#seenEpisodes.has(episode.id)) return;
    this.#seenEpisodes.add(episode.id);
    // Any other episode (a resolution, an agent's note) is not the replica's: it passes.
    switch (episode.type) {
      case stateEpisodeTypes.update: {
        const update = readUpdate(episode);
        // Own updates are counted when published (an in-process watch delivers them first).
        if (!update || update.peer === this.#replica.peer) return;
        this.#updatesSinceSnapshot++;
        this.#pendingImports.push(update.update);
        // Updates arriving together are imported in one batch: the first of these microtasks
        // imports every update pending by then, the later ones find none.
        queueMicrotask(() => this.flushImports());
        return;
      }
      case stateEpisodeTypes.snapshot:
        if (episode.payload.peer !== this.#replica.peer) this.#updatesSinceSnapshot = 0;
        return;
      case stateEpisodeTypes.escalation:
        this.#noteAnnouncement(episode);
        return;
    }
  }

  /**
   * An announcement on the timeline: nobody needs to announce that id again. (A resolution is
   * not one: a dispute reopened after it keeps its id and must be announced.)
   */
  #noteAnnouncement(episode: Episode): void {
    const id = episode.payload.escalationId;
    if (typeof id === "string") this.#onAnnouncement(id);
  }

  /** Imports `batch` (the replica returns at once when it is empty). */
  #importNow(batch: Uint8Array[]): void {
    try {
      this.#replica.import(batch);
    } catch (error) {
      // One bad update must not stop the replica: import the rest one by one.
      this.#onError(error);
      for (const update of batch) {
        try {
          this.#replica.import([update]);
        } catch (inner) {
          this.#onError(inner);
        }
      }
    }
  }
}
