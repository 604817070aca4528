import { afterEach, beforeEach, describe } from "vitest";
import type { ContextStore } from "../../../src/context/context-store.js";
import { PostgresStore } from "../../../src/context/postgres/postgres-store.js";
import { statewaveClientOfServe } from "../../support/serve-fetch.js";
import { uniqueSubject } from "../store-contract.js";
import { describeExactReadsContract } from "../store-contract-exact-reads.js";
import { postgresSkipReason, usePostgres } from "./use-postgres.js";

const skip = postgresSkipReason("exact-reads-through-serve.test.ts") !== undefined;

/**
 * The exact reads' contract through `serve` on Postgres: `StatewaveStore` -> serve's routes ->
 * `PostgresStore` (the embedded store runs it through serve in statewave-client.contract.test.ts,
 * Postgres directly in postgres-store.contract.test.ts).
 */
describe.skipIf(skip)("exact reads: StatewaveStore -> serve -> PostgresStore", () => {
  const postgres = usePostgres(skip);
  let url: Promise<string> | undefined;
  let store: ContextStore;
  let close: () => Promise<void>;
  beforeEach(async () => {
    // One database for the file: the contract uses fresh subject ids.
    url ??= postgres.database();
    const served = statewaveClientOfServe(new PostgresStore({ url: await url }));
    store = served.store;
    close = served.close;
  });
  afterEach(async () => {
    await close();
  });

  describeExactReadsContract(() => store, uniqueSubject);
});
