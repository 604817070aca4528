import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import pg from "pg";
import { afterEach, describe, expect, it } from "vitest";
import { PostgresConnectionError } from "../../../src/context/postgres/errors/postgres-connection-error.js";
import { PostgresStore } from "../../../src/context/postgres/postgres-store.js";
import { createApp } from "../../../src/server/app.js";
import { postgresSkipReason, usePostgres } from "./use-postgres.js";

const skip =
  postgresSkipReason("stalled-postgres.e2e.test.ts") !== undefined ||
  // Freezing the server needs its processes: an outside server cannot be stopped from here.
  process.env.SHARED_CTX_TEST_DATABASE_URL !== undefined;

/** The cluster's postmaster and every process it started (the backends of our pool included). */
async function clusterProcesses(url: string): Promise<number[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ pid: number }>("SELECT pg_backend_pid() AS pid");
    const backend = rows[0]?.pid ?? 0;
    // /proc/<pid>/stat: "pid (comm) state ppid …"; comm may hold spaces, so split after ")".
    const stat = readFileSync(`/proc/${backend}/stat`, "utf8");
    const postmaster = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
    const children = execFileSync("pgrep", ["-P", String(postmaster)], { encoding: "utf8" })
      .trim()
      .split("\n")
      .map(Number);
    return [postmaster, ...children];
  } finally {
    await client.end();
  }
}

describe.skipIf(skip)("PostgresStore on a stalled server (SIGSTOP)", () => {
  const postgres = usePostgres(skip);
  let frozen: number[] = [];
  const thaw = () => {
    for (const pid of frozen.splice(0)) {
      try {
        process.kill(pid, "SIGCONT");
      } catch {
        // Gone already.
      }
    }
  };
  afterEach(thaw);

  it("answers a prompt 503 with the Statewave envelope, /readyz fails, and it recovers after SIGCONT", async () => {
    const url = await postgres.database();
    const store = new PostgresStore({ url, statementTimeoutMs: 500 });
    try {
      const app = createApp({ store });
      const write = () =>
        app.fetch(
          new Request("http://test/v1/episodes", {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: JSON.stringify({
              subject_id: "run",
              source: "agent",
              type: "implementation_note",
              payload: { content: "a note" },
            }),
          }),
        );
      expect((await write()).status).toBe(201);

      frozen = await clusterProcesses(url);
      for (const pid of frozen) {
        try {
          process.kill(pid, "SIGSTOP");
        } catch (error) {
          // A backend that ended since the listing (the listing's own connection among them).
          if ((error as NodeJS.ErrnoException).code !== "ESRCH") throw error;
        }
      }
      const started = performance.now();
      const stalled = await write();
      const elapsed = performance.now() - started;
      expect(stalled.status).toBe(503);
      expect(await stalled.json()).toMatchObject({
        error: { code: "service_unavailable", message: "The database is unavailable" },
      });
      // 500 ms statement timeout + 1 s client grace, with room for a loaded machine.
      expect(elapsed).toBeLessThan(5_000);
      expect((await app.fetch(new Request("http://test/readyz"))).status).toBe(503);
      await expect(store.getTimeline("run")).rejects.toBeInstanceOf(PostgresConnectionError);

      thaw();
      await expect.poll(async () => (await write()).status, { timeout: 10_000 }).toBe(201);
      expect((await app.fetch(new Request("http://test/readyz"))).status).toBe(200);
    } finally {
      thaw();
      await store.close();
    }
  }, 30_000);
});
