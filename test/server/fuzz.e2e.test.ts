import { EmbeddedStore } from "../../src/context/embedded/embedded-store.js";
import { describeServeFuzz } from "./serve-fuzz.js";

// As `shared-ctx serve` opens it: concurrent creates share commits.
describeServeFuzz(
  "the embedded store",
  () => async () => new EmbeddedStore({ path: ":memory:", groupCommit: true }),
);
