import { EmbeddedStore } from "../../src/context/embedded/embedded-store.js";
import { StatewaveStore } from "../../src/context/statewave/statewave-store.js";
import { createApp } from "../../src/server/app.js";
import { describeDecisionLife } from "./support/decision-life-suite.js";

describeDecisionLife("the embedded store", () => async () => {
  const store = new EmbeddedStore({ path: ":memory:" });
  return { store, close: () => store.close() };
});

// Over the wire: a Statewave client of `shared-ctx serve`, an embedded store behind it.
describeDecisionLife(
  "serve (StatewaveStore over HTTP)",
  () => async () => {
    const behind = new EmbeddedStore({ path: ":memory:" });
    const app = createApp({ store: behind });
    const fetch: typeof globalThis.fetch = async (input, init) =>
      app.fetch(new Request(input, init));
    const store = new StatewaveStore({ fetch });
    return {
      store,
      close: async () => {
        await store.close();
        await behind.close();
      },
    };
  },
  // Its change feed polls the server: the notice arrives, but not within a test's settle.
  { notifies: false },
);
