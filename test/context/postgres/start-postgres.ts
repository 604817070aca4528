import { execFileSync, spawn } from "node:child_process";
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * A real, throw-away Postgres cluster for the tests: `initdb` into a temporary folder, started on
 * a free loopback port, removed on `stop()`. The binaries come from the distribution's packages
 * (`apt-get install postgresql`, which `.ci/run` does); `SHARED_CTX_TEST_DATABASE_URL` points the
 * tests at an existing server instead.
 */
export interface TestPostgres {
  /** `postgres://…` of the cluster's `postgres` database. */
  readonly url: string;
  /** A fresh, empty database on the cluster; its URL. */
  createDatabase(name: string): Promise<string>;
  stop(): Promise<void>;
}

/** Folders where Debian/Ubuntu (and Homebrew-like layouts) keep the server binaries. */
function findBinaries(): string | undefined {
  const candidates: string[] = [];
  for (const root of ["/usr/lib/postgresql", "/usr/local/lib/postgresql"]) {
    if (!existsSync(root)) continue;
    const versions = readdirSync(root)
      .filter((name) => /^\d+$/.test(name))
      .sort((left, right) => Number(right) - Number(left));
    candidates.push(...versions.map((version) => join(root, version, "bin")));
  }
  candidates.push("/usr/local/bin", "/usr/bin", "/opt/homebrew/bin");
  return candidates.find((folder) => existsSync(join(folder, "initdb")));
}

/** Why no cluster can be started here, or undefined when one can. */
export function postgresUnavailableReason(): string | undefined {
  if (process.env.SHARED_CTX_TEST_DATABASE_URL) return undefined;
  if (findBinaries() === undefined) {
    return "no Postgres server binaries (initdb) found: install them (`apt-get install -y postgresql`, as .ci/run does) or set SHARED_CTX_TEST_DATABASE_URL";
  }
  if (process.getuid?.() === 0 && postgresUid() === undefined) {
    return "running as root and there is no `postgres` user to run the server as (Postgres refuses to run as root)";
  }
  return undefined;
}

function postgresUid(): { uid: number; gid: number } | undefined {
  try {
    const uid = Number(execFileSync("id", ["-u", "postgres"], { encoding: "utf8" }).trim());
    const gid = Number(execFileSync("id", ["-g", "postgres"], { encoding: "utf8" }).trim());
    return { uid, gid };
  } catch {
    return undefined;
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** Runs a server binary, as the `postgres` user when we are root. */
function run(bin: string, args: string[], asUser: boolean): void {
  if (asUser) execFileSync("runuser", ["-u", "postgres", "--", bin, ...args], { stdio: "pipe" });
  else execFileSync(bin, args, { stdio: "pipe" });
}

async function query(url: string, sql: string): Promise<void> {
  const { default: pg } = await import("pg");
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/** What it takes to reach and stop a started cluster: plain data, written to a file and read back. */
export interface ClusterInfo {
  readonly url: string;
  readonly folder: string;
  readonly bin: string;
  readonly asUser: boolean;
}

const withDatabase = (base: string, name: string) => {
  const url = new URL(base);
  url.pathname = `/${name}`;
  return url.toString();
};

/** A {@link TestPostgres} over a server at `url`; `stop` is what stops it. */
function testPostgresAt(url: string, stop: () => Promise<void>, recreate = false): TestPostgres {
  return {
    url,
    async createDatabase(name) {
      if (recreate) await query(url, `DROP DATABASE IF EXISTS "${name}"`);
      await query(url, `CREATE DATABASE "${name}"`);
      return withDatabase(url, name);
    },
    stop,
  };
}

/**
 * Initialises and starts a cluster in a fresh temporary folder. Tuned for tests: fsync off (the
 * cluster is thrown away; a killed *client* still loses nothing it was told was committed).
 * @throws when the binaries are missing (call {@link postgresUnavailableReason} first)
 */
export async function startCluster(): Promise<ClusterInfo> {
  const bin = findBinaries();
  if (bin === undefined) throw new Error(postgresUnavailableReason());
  const asUser = process.getuid?.() === 0;
  const folder = mkdtempSync(join(tmpdir(), "shared-ctx-pg-"));
  const data = join(folder, "data");
  if (asUser) {
    const owner = postgresUid();
    if (owner === undefined) throw new Error(postgresUnavailableReason());
    chmodSync(folder, 0o755);
    chownSync(folder, owner.uid, owner.gid);
  }
  run(
    join(bin, "initdb"),
    ["-D", data, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-sync"],
    asUser,
  );
  const port = await freePort();
  const options = [
    `-p ${port}`,
    "-c listen_addresses=127.0.0.1",
    `-c unix_socket_directories=${folder}`,
    "-c fsync=off",
    "-c full_page_writes=off",
    "-c max_connections=300",
  ].join(" ");
  run(
    join(bin, "pg_ctl"),
    ["-D", data, "-o", options, "-l", join(folder, "log"), "-w", "start"],
    asUser,
  );
  return { url: `postgres://postgres@127.0.0.1:${port}/postgres`, folder, bin, asUser };
}

/** Stops a cluster {@link startCluster} started (immediately: it is thrown away) and removes it. */
export async function stopCluster(info: ClusterInfo): Promise<void> {
  const { bin, asUser, folder } = info;
  await new Promise<void>((resolve) => {
    const args = ["-D", join(folder, "data"), "-m", "immediate", "-w", "stop"];
    const child = asUser
      ? spawn("runuser", ["-u", "postgres", "--", join(bin, "pg_ctl"), ...args], {
          stdio: "ignore",
        })
      : spawn(join(bin, "pg_ctl"), args, { stdio: "ignore" });
    child.once("exit", () => resolve());
    child.once("error", () => resolve());
  });
  rmSync(folder, { recursive: true, force: true });
}

/**
 * A cluster for one test file: `SHARED_CTX_TEST_DATABASE_URL` when set; else the test run's one
 * shared cluster (`test/support/postgres-run.ts`, started by the first file that needs it and
 * stopped when the run ends), or, outside such a run, a cluster of the file's own.
 * @throws when the binaries are missing (call {@link postgresUnavailableReason} first)
 */
export async function startTestPostgres(runFolder?: string): Promise<TestPostgres> {
  const given = process.env.SHARED_CTX_TEST_DATABASE_URL;
  if (given) return testPostgresAt(given, async () => undefined, true);
  if (runFolder !== undefined) {
    const { sharedCluster } = await import("../../support/postgres-run.js");
    const info = await sharedCluster(runFolder, startCluster);
    // Stopped with the run (postgres-run.ts), not with the file.
    return testPostgresAt(info.url, async () => undefined);
  }
  const info = await startCluster();
  let stopped = false;
  return testPostgresAt(info.url, async () => {
    if (stopped) return;
    stopped = true;
    await stopCluster(info);
  });
}
