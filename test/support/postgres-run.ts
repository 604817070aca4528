import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestProject } from "vitest/node";

/**
 * One Postgres cluster for a whole test run instead of one per test file (each file still gets
 * fresh databases on it). This is the run's `globalSetup`: it makes a folder for the run and
 * hands its path to the workers (`inject("postgresRunFolder")`); the first file that needs
 * Postgres starts the cluster there under a lock (a `mkdir`, atomic across processes) and writes
 * how to reach it; the others read that. When the run ends, the cluster (if one was started) is
 * stopped and the folder removed. A run without a Postgres file starts nothing.
 */

declare module "vitest" {
  interface ProvidedContext {
    postgresRunFolder: string;
  }
}

const infoFile = "cluster.json";

export default function setup(project: TestProject): () => Promise<void> {
  const folder = mkdtempSync(join(tmpdir(), "shared-ctx-pg-run-"));
  project.provide("postgresRunFolder", folder);
  return async () => {
    const file = join(folder, infoFile);
    if (existsSync(file)) {
      const { stopCluster } = await import("../context/postgres/start-postgres.js");
      await stopCluster(JSON.parse(readFileSync(file, "utf8")));
    }
    rmSync(folder, { recursive: true, force: true });
  };
}

/**
 * The run's cluster: read from the run folder, or started with `start` by the first caller (the
 * others wait for its lock).
 */
export async function sharedCluster<Info>(
  folder: string,
  start: () => Promise<Info>,
): Promise<Info> {
  const lock = join(folder, "lock");
  const file = join(folder, infoFile);
  for (let waited = 0; ; waited += 50) {
    try {
      mkdirSync(lock);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      if (waited > 120_000)
        throw new Error(`the run's Postgres lock ${lock} was held for 2 minutes`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
  try {
    if (existsSync(file)) return JSON.parse(readFileSync(file, "utf8")) as Info;
    const info = await start();
    writeFileSync(file, JSON.stringify(info));
    return info;
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}
