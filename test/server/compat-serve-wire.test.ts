import { EmbeddedStore } from "../../src/context/embedded/embedded-store.js";
import { describeServeOnTheWire } from "./serve-wire.js";

describeServeOnTheWire(
  "the embedded store",
  () => async () => new EmbeddedStore({ path: ":memory:" }),
);
