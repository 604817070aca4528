import { afterEach } from "vitest";
import type { StoreChange } from "../../../src/context/context-store.js";
import type { EmbeddedStore } from "../../../src/context/embedded/embedded-store.js";

/** Something a test opens and must close: a store, a shared context, a shared state. */
interface Closable {
  close(): Promise<void>;
}

/** Keeps what a test opens and closes it after each test, last opened first. */
export function closeAfterEach(): { push(...items: Closable[]): void } {
  const opened: Closable[] = [];
  afterEach(async () => {
    for (const item of opened.splice(0).reverse()) await item.close();
  });
  return {
    push: (...items) => {
      opened.push(...items);
    },
  };
}

/**
 * Hands changes straight to whoever watches `store` (the listener a SharedContext gives the store's
 * change feed), so a test can deliver a change the store would never produce. Call it before the
 * watcher subscribes; `send` throws while nobody watches.
 */
export function captureFeed(store: EmbeddedStore): (change: StoreChange) => void {
  let feed: ((change: StoreChange) => void) | undefined;
  const watch = store.watch.bind(store);
  store.watch = (id, listener, options) => {
    feed = listener;
    return watch(id, listener, options);
  };
  return (change) => {
    if (feed === undefined) throw new Error("SharedContext is not watching");
    feed(change);
  };
}
