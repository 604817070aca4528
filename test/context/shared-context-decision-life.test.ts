import { EmbeddedStore } from "../../src/context/embedded/embedded-store.js";
import { statewaveClientOfServe } from "../support/serve-fetch.js";
import { describeDecisionLife } from "./support/decision-life-suite.js";

describeDecisionLife("the embedded store", () => async () => {
  const store = new EmbeddedStore({ path: ":memory:" });
  return { store, close: () => store.close() };
});

// Over the wire: a Statewave client of `shared-ctx serve`, an embedded store behind it.
describeDecisionLife(
  "serve (StatewaveStore over HTTP)",
  () => async () => statewaveClientOfServe(new EmbeddedStore({ path: ":memory:" })),
  // Its change feed polls the server: the notice arrives, but not within a test's settle.
  { notifies: false },
);
