import { EmbeddedStore } from "../../src/context/embedded/embedded-store.js";
import { describeBadRequests } from "./bad-requests.js";

// The same table runs on Postgres in test/context/postgres/serve-on-postgres.e2e.test.ts.
describeBadRequests(
  "the embedded store",
  () => async () => new EmbeddedStore({ path: ":memory:", groupCommit: true }),
);
