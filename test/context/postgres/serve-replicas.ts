import type { ChildProcess } from "node:child_process";
import { spawnTsChild, waitForExit } from "../../support/run-child.js";

/** One `shared-ctx serve --database-url …` process. */
export interface ServeReplica {
  readonly url: string;
  readonly child: ChildProcess;
  readonly exited: ReturnType<typeof waitForExit>;
}

/**
 * Starts `shared-ctx serve` as a real process on a free loopback port, serving the Postgres
 * database at `databaseUrl` (the fixture runs the real serve command with the CLI's signal wiring).
 */
export async function startServeReplica(databaseUrl: string): Promise<ServeReplica> {
  const child = spawnTsChild(
    "test/server/fixtures/serve-child.ts",
    ["--port", "0", "--database-url", databaseUrl],
    { SHARED_CTX_API_KEY: "" },
  );
  const exited = waitForExit(child);
  let stdout = "";
  let stderr = "";
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout?.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
      const match = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(stdout);
      if (match?.[1]) resolve(match[1]);
    });
    child.stderr?.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.once("exit", () => reject(new Error(`serve exited early: ${stdout}${stderr}`)));
  });
  return { url, child, exited };
}

/** Stops replicas with SIGTERM (SIGKILLed ones are already gone) and waits for them. */
export async function stopReplicas(replicas: readonly ServeReplica[]): Promise<void> {
  for (const replica of replicas) {
    if (replica.child.exitCode === null && replica.child.signalCode === null) {
      replica.child.kill("SIGTERM");
    }
  }
  await Promise.all(replicas.map((replica) => replica.exited.catch(() => undefined)));
}
