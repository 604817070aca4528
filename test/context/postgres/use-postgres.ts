import { randomUUID } from "node:crypto";
import type pg from "pg";
import { afterAll, beforeAll, inject } from "vitest";
import { PostgresStore } from "../../../src/context/postgres/postgres-store.js";
import {
  postgresUnavailableReason,
  startTestPostgres,
  type TestPostgres,
} from "./start-postgres.js";

/**
 * Why the Postgres tests cannot run here, or undefined when they can. When they cannot, this says
 * so LOUDLY on stderr (never a silent skip), and with `SHARED_CTX_REQUIRE_POSTGRES=1` (CI) it
 * throws instead, so a missing server fails the run.
 */
export function postgresSkipReason(file: string): string | undefined {
  const reason = postgresUnavailableReason();
  if (reason === undefined) return undefined;
  const message = `\n${"!".repeat(100)}\n!! SKIPPED ${file}: Postgres tests did not run: ${reason}\n${"!".repeat(100)}\n`;
  if (process.env.SHARED_CTX_REQUIRE_POSTGRES === "1") throw new Error(message);
  process.stderr.write(message);
  return reason;
}

/**
 * A real Postgres cluster for the test file (the test run's shared one, started by the first file
 * that asks); `database()` creates a fresh, empty database on it and returns its URL.
 */
export function usePostgres(skip: boolean): {
  database(): Promise<string>;
  cluster(): TestPostgres;
} {
  let cluster: TestPostgres | undefined;
  beforeAll(async () => {
    if (skip) return;
    // The run's shared cluster when the run has one (test/support/postgres-run.ts).
    cluster = await startTestPostgres(inject("postgresRunFolder"));
  }, 60_000);
  afterAll(async () => {
    await cluster?.stop();
  }, 60_000);
  const started = () => {
    if (cluster === undefined) throw new Error("the test Postgres is not started");
    return cluster;
  };
  return {
    cluster: started,
    database: () => started().createDatabase(`t_${randomUUID().replaceAll("-", "").slice(0, 16)}`),
  };
}

/**
 * How many backends of the client's database match `where` (a condition on pg_stat_activity):
 * how a test sees a compile waiting on a lock or a reader's LISTEN connection come up.
 */
export async function backendCount(
  client: pg.Client,
  where: string,
  parameters: unknown[] = [],
): Promise<number> {
  const { rows } = await client.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND ${where}`,
    parameters,
  );
  return rows[0]?.n ?? 0;
}

/**
 * The `prepare` a shared store suite takes (bad requests, idempotent writes, the wire): run inside
 * the suite's `describe`, it starts the file's cluster and opens a store on a fresh database per test.
 */
export function freshPostgresStores(skip: boolean): () => () => Promise<PostgresStore> {
  return () => {
    const postgres = usePostgres(skip);
    return async () => new PostgresStore({ url: await postgres.database() });
  };
}
