import type { ChangePage, StoreChange } from "./context-store.js";
import { type CursorPair, changeCursor } from "./store-cursors.js";

/**
 * What the embedded and the Postgres watch hubs share: a watcher's place in a subject's change
 * feed, the page of changes one catch-up reads, and how a page is handed to the listener. The
 * hubs differ in what tells them to look (a local commit, `data_version`, NOTIFY), not in this.
 */

/** Where a watcher stands: the last episode seq and memory change it delivered. */
export interface WatchCursor {
  episode: number;
  memory: number;
}

/** A change read from the feed, with the cursor it moves the watcher to. */
export interface FeedChange {
  change: StoreChange;
  episode?: number;
  memory?: number;
}

/** Rows read per catch-up query. */
export const deliveryPage = 500;

/**
 * Hands one page of changes to `watcher`, oldest first, moving its cursor before each call (so a
 * re-entrant write never re-delivers one); stops as soon as the watcher is closed.
 * @param cursorOf the cursor to move, asked again for each change: a listener may delete the
 *   subject, and the embedded hub then gives the watcher a new cursor
 * @returns whether the page was full (`deliveryPage` episodes or memory changes): more may wait
 */
export function deliverPage(
  watcher: {
    listener: (change: StoreChange) => void;
    onError: ((error: unknown) => void) | undefined;
    closed: boolean;
  },
  cursorOf: () => WatchCursor,
  changes: readonly FeedChange[],
): boolean {
  const full =
    changes.filter((item) => item.episode !== undefined).length === deliveryPage ||
    changes.filter((item) => item.memory !== undefined).length === deliveryPage;
  for (const item of changes) {
    if (watcher.closed) break;
    if (item.episode !== undefined) cursorOf().episode = item.episode;
    if (item.memory !== undefined) cursorOf().memory = item.memory;
    try {
      watcher.listener(item.change);
    } catch (error) {
      // The write already committed: a failing listener must neither fail the writer nor stop
      // the feed.
      watcher.onError?.(error);
    }
  }
  return full;
}

/**
 * One `changesSince` page from up to `limit + 1` rows of each list after `after`: at most `limit`
 * episodes and `limit` memory changes, the cursor past what it holds, and whether either list had
 * more. What the embedded and the Postgres stores share once each has read its rows.
 */
export function changePageOf(
  rows: readonly FeedChange[],
  after: CursorPair,
  limit: number,
): ChangePage {
  const episodes = rows.filter((row) => row.episode !== undefined);
  const memories = rows.filter((row) => row.memory !== undefined);
  const kept = [...episodes.slice(0, limit), ...memories.slice(0, limit)];
  const at = { ...after };
  for (const row of kept) {
    if (row.episode !== undefined) at.episode = row.episode;
    if (row.memory !== undefined) at.memory = row.memory;
  }
  return {
    changes: kept.map((row) => row.change),
    cursor: changeCursor(at),
    hasMore: episodes.length > limit || memories.length > limit,
  };
}
