import { PostgresStore } from "../../../src/context/postgres/postgres-store.js";
import { describeServeFuzz } from "../../server/serve-fuzz.js";
import { postgresSkipReason, usePostgres } from "./use-postgres.js";

// The embedded store's fuzz, unchanged, on a throw-away Postgres: the same 0 × 5xx.
const skip = postgresSkipReason("fuzz-on-postgres.e2e.test.ts") !== undefined;

describeServeFuzz(
  "Postgres",
  () => {
    const postgres = usePostgres(skip);
    return async () => {
      const store = new PostgresStore({ url: await postgres.database() });
      await store.connect();
      return store;
    };
  },
  skip,
);
