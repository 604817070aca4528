import { StatewaveStore } from "../../src/context/statewave/statewave-store.js";
import { type CreateAppOptions, createApp } from "../../src/server/app.js";

/**
 * `shared-ctx serve`'s app as a `fetch`, without a socket: how a Statewave client of serve is
 * tested on any store (the app never closes the store).
 */
export function serveFetch(options: CreateAppOptions): typeof globalThis.fetch {
  const app = createApp(options);
  return async (input, init) => app.fetch(new Request(input, init));
}

/**
 * A `StatewaveStore` that talks to `serve` over `behind`, and what closes both: the same store
 * suites run through the wire, as a Statewave client of `shared-ctx serve` sees it.
 */
export function statewaveClientOfServe(
  behind: CreateAppOptions["store"] & { close(): Promise<void> },
) {
  const store = new StatewaveStore({ fetch: serveFetch({ store: behind }) });
  return {
    store,
    close: async () => {
      await store.close();
      await behind.close();
    },
  };
}
