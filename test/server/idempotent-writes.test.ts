import { EmbeddedStore } from "../../src/context/embedded/embedded-store.js";
import { describeIdempotentWrites } from "./idempotent-writes.js";

// The same tests run on Postgres in test/context/postgres/serve-on-postgres.e2e.test.ts.
describeIdempotentWrites(
  "the embedded store",
  () => async () => new EmbeddedStore({ path: ":memory:", groupCommit: true }),
);
