import { spawn } from "node:child_process";
import { Agent, createServer, request as httpRequest, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { EmbeddedStore } from "../context/embedded/embedded-store.js";
import { round } from "./latency.js";
import {
  createRequestCounter,
  type RequestCount,
  type RequestsBenchResult,
} from "./request-count.js";

/**
 * `shared-ctx bench requests`: how many requests one `run` sends to a Statewave-shaped server,
 * through a counting proxy in front of `serve` and of the v0.7.1 emulation. A benchmark: the
 * count is exact, the seconds are what the machine gave.
 */

/** Options of {@link runRequestsBench}. */
export interface RequestsBenchOptions {
  /** An empty folder for serve's database. */
  readonly dir: string;
  /** @default "auth-jwt" */
  readonly scenario?: string;
  /** @default this package's bin/shared-ctx.js */
  readonly bin?: string;
  readonly onProgress?: (message: string) => void;
}

const defaultBin = fileURLToPath(new URL("../../bin/shared-ctx.js", import.meta.url));

/** A reverse proxy on loopback that counts each request, then forwards it to `upstream`. */
async function countingProxy(upstream: string) {
  const counter = createRequestCounter();
  const target = new URL(upstream);
  const agent = new Agent({ keepAlive: true });
  const server: Server = createServer((incoming, outgoing) => {
    counter.count(incoming.method ?? "GET", incoming.url ?? "/");
    const forwarded = httpRequest(
      {
        host: target.hostname,
        port: target.port,
        method: incoming.method,
        path: incoming.url,
        headers: { ...incoming.headers, host: target.host },
        agent,
      },
      (answer) => {
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(outgoing);
      },
    );
    forwarded.on("error", () => {
      if (!outgoing.headersSent) outgoing.writeHead(502);
      outgoing.end();
    });
    incoming.pipe(forwarded);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    counter,
    close: () =>
      new Promise<void>((resolve) => {
        agent.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Runs `run --scenario <name> --store statewave --url <url>` to its exit. */
function runScenario(bin: string, scenario: string, url: string, cwd: string): Promise<void> {
  const child = spawn(
    process.execPath,
    [bin, "run", "--scenario", scenario, "--store", "statewave", "--url", url, "--seed", "1"],
    { cwd, env: { ...process.env, NO_COLOR: "1" }, stdio: ["ignore", "ignore", "pipe"] },
  );
  let stderr = "";
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  return new Promise((resolve, reject) => {
    child.once("error", reject);
    child.once("close", (code) => {
      if (code === 0) resolve();
      else reject(new Error(`run exited ${code}: ${stderr.trim().split("\n")[0] ?? ""}`));
    });
  });
}

async function countThrough(
  server: string,
  upstream: string,
  options: RequestsBenchOptions,
): Promise<RequestCount> {
  const proxy = await countingProxy(upstream);
  const started = performance.now();
  try {
    await runScenario(
      options.bin ?? defaultBin,
      options.scenario ?? "auth-jwt",
      proxy.url,
      options.dir,
    );
  } finally {
    await proxy.close();
  }
  return {
    server,
    ...proxy.counter.snapshot(),
    seconds: round((performance.now() - started) / 1000),
  };
}

/** One run against `serve` (an embedded store) and one against the v0.7.1 emulation, counted. */
export async function runRequestsBench(
  options: RequestsBenchOptions,
): Promise<RequestsBenchResult> {
  const say = options.onProgress ?? (() => undefined);
  const [{ startServer }, { startStatewaveEmulator }] = await Promise.all([
    import("../server/listen.js"),
    import("../server/compat/listen-statewave-emulator.js"),
  ]);
  const counts: RequestCount[] = [];
  say("serve (embedded store)");
  const serve = await startServer({
    store: new EmbeddedStore({ path: join(options.dir, "serve.db") }),
    port: 0,
  });
  try {
    counts.push(await countThrough("serve", serve.url, options));
  } finally {
    await serve.close();
  }
  say("Statewave v0.7.1 emulation");
  const emulator = await startStatewaveEmulator({ port: 0 });
  try {
    counts.push(await countThrough("statewave-0.7.1 emulation", emulator.url, options));
  } finally {
    await emulator.close();
  }
  return { scenario: options.scenario ?? "auth-jwt", counts };
}
