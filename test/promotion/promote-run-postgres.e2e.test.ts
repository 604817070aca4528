import { describe } from "vitest";
import { PostgresStore } from "../../src/context/postgres/postgres-store.js";
import { postgresSkipReason, usePostgres } from "../context/postgres/use-postgres.js";
import { describePromotion } from "./promotion-suite.js";

const skip = postgresSkipReason("promote-run-postgres.e2e.test.ts") !== undefined;

describe.skipIf(skip)("promotion on Postgres", () => {
  const postgres = usePostgres(skip);
  describePromotion("Postgres", async () => new PostgresStore({ url: await postgres.database() }));
});
