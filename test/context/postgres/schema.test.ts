import pg from "pg";
import { afterEach, describe, expect, it } from "vitest";
import { StoreSchemaError } from "../../../src/context/errors/store-schema-error.js";
import { migrate, migrations, schemaVersion } from "../../../src/context/postgres/schema.js";
import { postgresSkipReason, usePostgres } from "./use-postgres.js";

const skip = postgresSkipReason("schema.test.ts") !== undefined;

describe.skipIf(skip)("Postgres schema migration", () => {
  const postgres = usePostgres(skip);
  const pools: pg.Pool[] = [];
  afterEach(async () => {
    for (const pool of pools.splice(0)) await pool.end();
  });

  async function freshPool(): Promise<pg.Pool> {
    const pool = new pg.Pool({ connectionString: await postgres.database(), max: 8 });
    pools.push(pool);
    return pool;
  }

  /** Runs `migrate` on its own connection, as one replica starting up does. */
  async function startReplica(pool: pg.Pool): Promise<void> {
    const client = await pool.connect();
    try {
      await migrate(client, "postgres://test");
    } finally {
      client.release();
    }
  }

  async function versions(pool: pg.Pool): Promise<number[]> {
    const { rows } = await pool.query<{ version: number }>(
      "SELECT version FROM shared_ctx_schema ORDER BY version",
    );
    return rows.map((row) => row.version);
  }

  const allVersions = Array.from({ length: schemaVersion }, (_, index) => index + 1);

  it("brings a new database to the current version and records each step once, across restarts", async () => {
    const pool = await freshPool();
    await startReplica(pool);
    await startReplica(pool);
    expect(await versions(pool)).toEqual(allVersions);
    const { rows } = await pool.query<{ count: string }>("SELECT count(*) AS count FROM memories");
    expect(rows[0]?.count).toBe("0");
  });

  it("brings a database of schema 2 (before the exact reads) to the current one: their indexes exist", async () => {
    const pool = await freshPool();
    await pool.query(
      "CREATE TABLE shared_ctx_schema (version integer NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())",
    );
    for (const [index, step] of migrations.slice(0, 2).entries()) {
      await pool.query(step);
      await pool.query("INSERT INTO shared_ctx_schema (version) VALUES ($1)", [index + 1]);
    }
    await startReplica(pool);
    expect(await versions(pool)).toEqual(allVersions);
    const { rows } = await pool.query<{ indexname: string }>(
      "SELECT indexname FROM pg_indexes WHERE tablename IN ('memories', 'episodes')",
    );
    expect(rows.map((row) => row.indexname)).toEqual(
      expect.arrayContaining([
        "memories_by_target",
        "memories_by_status_seq",
        "memories_by_kind",
        "episodes_by_id",
      ]),
    );
  });

  it("migrates exactly once when several replicas start together", async () => {
    const pool = await freshPool();
    await Promise.all(Array.from({ length: 4 }, () => startReplica(pool)));
    expect(await versions(pool)).toEqual(allVersions);
  });

  it("leaves the database as it was when a migration fails", async () => {
    const pool = await freshPool();
    // A table of the same name from something else makes the first migration fail part-way.
    await pool.query("CREATE TABLE compile_jobs (unrelated integer)");
    await expect(startReplica(pool)).rejects.toThrow(/compile_jobs/);
    const { rows } = await pool.query<{ table_name: string }>(
      "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY table_name",
    );
    expect(rows.map((row) => row.table_name)).toEqual(["compile_jobs"]);
  });

  it("refuses a database written by a newer shared-ctx, naming both versions, and leaves no lock behind", async () => {
    const pool = await freshPool();
    await startReplica(pool);
    await pool.query("INSERT INTO shared_ctx_schema (version) VALUES ($1)", [schemaVersion + 5]);
    const client = await pool.connect();
    try {
      const error = await migrate(client, "postgres://test/newer").then(
        () => undefined,
        (caught: unknown) => caught,
      );
      expect(error).toBeInstanceOf(StoreSchemaError);
      expect(error).toMatchObject({
        path: "postgres://test/newer",
        foundVersion: schemaVersion + 5,
        supportedVersion: schemaVersion,
      });
      // Seen from another connection: the refused replica holds no migration lock (it rolled
      // back), so it cannot block the replicas that start after it.
      const { rows } = await pool.query<{ count: string }>(
        "SELECT count(*) AS count FROM pg_locks WHERE locktype = 'advisory' AND database = (SELECT oid FROM pg_database WHERE datname = current_database())",
      );
      expect(rows[0]?.count).toBe("0");
    } finally {
      client.release();
    }
  });
});
