import { describe } from "vitest";
import { PostgresStore } from "../../../src/context/postgres/postgres-store.js";
import { describeStoreContract } from "../store-contract.js";
import { postgresSkipReason, usePostgres } from "./use-postgres.js";

const skip = postgresSkipReason("postgres-store.contract.e2e.test.ts") !== undefined;

describe.skipIf(skip)("PostgresStore on a real Postgres", () => {
  const postgres = usePostgres(skip);
  let url: Promise<string> | undefined;
  // One database for the file: the contract uses fresh subject ids, so stores may share it.
  const database = () => {
    url ??= postgres.database();
    return url;
  };

  describeStoreContract("PostgresStore", async () => {
    const store = new PostgresStore({ url: await database(), pollIntervalMs: 200 });
    return { store, cleanup: () => store.close() };
  });

  describeStoreContract("PostgresStore, a named tenant", async () => {
    const owner = new PostgresStore({ url: await database(), tenantId: "tenant-a" });
    return { store: owner, cleanup: () => owner.close() };
  });
});
