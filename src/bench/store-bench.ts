import { randomUUID } from "node:crypto";
import { join } from "node:path";
import Database from "better-sqlite3";
import type { CreateEpisodeInput } from "../context/context-store.js";
import { EmbeddedStore } from "../context/embedded/embedded-store.js";
import { benchTasks, makeEpisodes, seededRandom } from "./bench-episodes.js";
import type { HttpLoadFigures, HttpLoadPlan } from "./http-load-client.js";
import { type LatencyFigures, latency, round, timeCalls } from "./latency.js";

/**
 * `shared-ctx bench store`: ingest, raw SQLite limit, getContext/getTimeline latency at 1k/10k/100k
 * episodes, and `serve` over loopback HTTP. A benchmark, never a test: it measures wall time.
 */

/** Options of {@link runStoreBench}. */
export interface StoreBenchOptions {
  /** An empty folder for the database files. */
  dir: string;
  /** Subject sizes for getContext. @default [1000, 10000, 100000] */
  sizes?: readonly number[];
  /** Episodes for the single-episode and raw insert runs. @default 5000 */
  ingestCount?: number;
  /**
   * Seconds of single-episode creates against `serve`, once by autocannon in this process and
   * once by 8 clients in a separate process. @default 8
   */
  serveSeconds?: number;
  /** Skip the HTTP part. @default false */
  skipServe?: boolean;
  /** Told what is being measured, for a progress line. */
  onProgress?: (message: string) => void;
}

/** Everything `bench store` measured, as printed by the table and by `--json`. */
export interface StoreBenchResult {
  /** `loadAverage`: the 1-minute load when the run started; figures from a busy machine are low. */
  machine: { node: string; sqlite: string; cpus: number; platform: string; loadAverage: number };
  ingest: {
    singlePerSecond: number;
    batchPerSecond: number;
    rawPerSecond: number;
    rawBatchPerSecond: number;
    /** singlePerSecond / rawPerSecond. Target >= 0.5. */
    singleToRaw: number;
    /** batchPerSecond / rawBatchPerSecond. */
    batchToRawBatch: number;
  };
  /** `memories` counts every status (superseded ones too). */
  context: Array<
    {
      episodes: number;
      memories: number;
      compileMs: number;
      /**
       * p95 of the CPU time per call: what the call itself costs, without the time the process
       * waited for a CPU. On a busy machine the wall-clock p95 is mostly that wait.
       */
      cpuP95: number;
    } & LatencyFigures
  >;
  timeline: { episodes: number; page100: LatencyFigures; full: LatencyFigures };
  serve?: ServeBenchFigures | { skipped: string };
  totalSeconds: number;
  /** The 1-minute load when the run ended: a figure far from `machine.loadAverage` means a noisy run. */
  loadAverageAtEnd?: number;
}

/** `serve` over loopback HTTP: what clients in another process see, and the in-process figure. */
export interface ServeBenchFigures {
  /** autocannon on a worker thread of the bench process, `connections` keep-alive connections. */
  inProcess: { connections: number; createsPerSecond: number; non2xx: number; errors: number };
  /** A client process of its own (`http-load-client.ts`): `clients` concurrent keep-alive clients. */
  client: HttpLoadFigures & {
    clients: number;
    /** Memories of the subject `/v1/context` and `/v1/timeline` read (every status). */
    contextMemories: number;
  };
}

/** The issue 12 targets for `serve`, measured from a client in another process. */
export const serveTargets = {
  createsPerSecond: 3000,
  contextP50Ms: 2,
  timelineP50Ms: 5,
} as const;

async function insertBatches(store: EmbeddedStore, episodes: CreateEpisodeInput[]): Promise<void> {
  for (let start = 0; start < episodes.length; start += 100) {
    await store.createEpisodesBatch(episodes.slice(start, start + 100));
  }
}

/** Same pragmas and same table as the store, rows prepared up front: the insert rate SQLite allows. */
function rawInsertRates(dir: string, count: number): { single: number; batch: number } {
  const path = join(dir, "raw.db");
  // Let the store create its schema, so the raw inserts hit the very same table and indexes.
  new EmbeddedStore({ path }).close();
  const db = new Database(path);
  db.pragma("journal_mode = WAL");
  db.pragma("busy_timeout = 10000");
  db.pragma("synchronous = NORMAL");
  const insert = db.prepare(
    `INSERT INTO episodes (id, tenant_id, subject_id, source, type, payload, metadata, provenance, session_id, created_at)
     VALUES (?, NULL, 'raw', 'agent-1', 'implementation_note', ?, '{}', '{}', NULL, ?)`,
  );
  const rows = Array.from({ length: count }, (_, index) => [
    randomUUID(),
    JSON.stringify({ content: `raw insert ${index}` }),
    new Date().toISOString(),
  ]);
  let started = performance.now();
  for (const row of rows) insert.run(...row);
  const single = count / ((performance.now() - started) / 1000);
  for (const row of rows) row[0] = randomUUID();
  const inTransaction = db.transaction((chunk: string[][]) => {
    for (const row of chunk) insert.run(...row);
  });
  started = performance.now();
  for (let start = 0; start < rows.length; start += 100)
    inTransaction(rows.slice(start, start + 100));
  const batch = count / ((performance.now() - started) / 1000);
  db.close();
  return { single, batch };
}

/** Runs every measurement once, in one process, and returns the figures. */
export async function runStoreBench(options: StoreBenchOptions): Promise<StoreBenchResult> {
  const began = performance.now();
  const progress = options.onProgress ?? (() => {});
  // One seeded sequence, drawn in this order (ingest, context, serve): the same data every run.
  const random = seededRandom(42);
  const { availableParallelism, loadavg, platform } = await import("node:os");
  const loadAverage = round(loadavg()[0] ?? 0, 2);
  const ingest = await benchIngest(options.dir, options.ingestCount ?? 5000, random, progress);
  const sizes = options.sizes ?? [1000, 10_000, 100_000];
  const { context, timeline } = await benchContext(options.dir, sizes, random, progress);
  let serve: StoreBenchResult["serve"];
  if (options.skipServe) {
    serve = { skipped: "--skip-serve" };
  } else {
    progress(
      "serve: POST /v1/episodes from 8 clients in another process, /v1/context and /v1/timeline; then autocannon in process",
    );
    serve = await benchServe(options.dir, options.serveSeconds ?? 8, random);
  }
  return {
    machine: {
      node: process.version,
      sqlite: sqliteVersion(),
      cpus: availableParallelism(),
      platform: `${platform()}`,
      loadAverage,
    },
    ingest,
    context,
    timeline: timeline ?? {
      episodes: 0,
      page100: { p50: 0, p95: 0, samples: 0 },
      full: { p50: 0, p95: 0, samples: 0 },
    },
    serve,
    totalSeconds: round((performance.now() - began) / 1000, 1),
    loadAverageAtEnd: round(loadavg()[0] ?? 0, 2),
  };
}

/** The SQLite version better-sqlite3 was built with. */
function sqliteVersion(): string {
  const db = new Database(":memory:");
  const row = db.prepare("SELECT sqlite_version() AS version").get() as { version: string };
  db.close();
  return row.version;
}

/** Creates per second, one at a time and in batches of 100, beside raw SQLite inserts. */
async function benchIngest(
  dir: string,
  ingestCount: number,
  random: () => number,
  progress: (message: string) => void,
): Promise<StoreBenchResult["ingest"]> {
  progress(`ingest: ${ingestCount} single creates, ${ingestCount} in batches of 100, raw inserts`);
  const raw = rawInsertRates(dir, ingestCount);
  const ingestStore = new EmbeddedStore({ path: join(dir, "ingest.db") });
  const singles = makeEpisodes("ingest-single", ingestCount, random);
  let started = performance.now();
  for (const input of singles) await ingestStore.createEpisode(input);
  const singlePerSecond = ingestCount / ((performance.now() - started) / 1000);
  const batched = makeEpisodes("ingest-batch", ingestCount, random);
  started = performance.now();
  await insertBatches(ingestStore, batched);
  const batchPerSecond = ingestCount / ((performance.now() - started) / 1000);
  await ingestStore.close();
  return {
    singlePerSecond: Math.round(singlePerSecond),
    batchPerSecond: Math.round(batchPerSecond),
    rawPerSecond: Math.round(raw.single),
    rawBatchPerSecond: Math.round(raw.batch),
    singleToRaw: round(singlePerSecond / raw.single, 2),
    batchToRawBatch: round(batchPerSecond / raw.batch, 2),
  };
}

/**
 * One subject grown to each size in turn and compiled: getContext latency at each size, and
 * getTimeline's at 10k episodes.
 */
async function benchContext(
  dir: string,
  sizes: readonly number[],
  random: () => number,
  progress: (message: string) => void,
): Promise<Pick<StoreBenchResult, "context"> & { timeline?: StoreBenchResult["timeline"] }> {
  const store = new EmbeddedStore({ path: join(dir, "context.db") });
  const subjectId = "bench-subject";
  const taskList = benchTasks(random);
  const context: StoreBenchResult["context"] = [];
  let timeline: StoreBenchResult["timeline"] | undefined;
  let have = 0;
  for (const size of sizes) {
    progress(`getContext: growing one subject to ${size} episodes and compiling`);
    await insertBatches(store, makeEpisodes(subjectId, size - have, random));
    have = size;
    const compileStarted = performance.now();
    await store.compileMemories(subjectId);
    const compileMs = performance.now() - compileStarted;
    const memories = (await store.listSubjects()).subjects[0]?.memoryCount ?? 0;
    await timeCalls(20, (index) =>
      store.getContext(subjectId, taskList[index % taskList.length] ?? ""),
    );
    const iterations = size >= 100_000 ? 200 : 300;
    const samples = await timeCalls(iterations, (index) =>
      store.getContext(subjectId, taskList[index % taskList.length] ?? ""),
    );
    context.push({
      episodes: size,
      memories,
      compileMs: round(compileMs, 1),
      ...latency(samples),
      cpuP95: latency(samples.cpu).p95,
    });
    if (size === 10_000) {
      progress("getTimeline at 10k episodes");
      const page100 = latency(await timeCalls(200, () => store.getTimeline(subjectId)));
      const full = latency(
        await timeCalls(10, () => store.getTimeline(subjectId, { limit: 10_000 })),
      );
      timeline = { episodes: size, page100, full };
    }
  }
  await store.close();
  return { context, ...(timeline ? { timeline } : {}) };
}

/** Runs the forked client (`http-load-client`) against `url` and returns its figures. */
async function runClientProcess(plan: HttpLoadPlan): Promise<HttpLoadFigures> {
  const { fork } = await import("node:child_process");
  const { existsSync } = await import("node:fs");
  const { fileURLToPath } = await import("node:url");
  const built = fileURLToPath(new URL("./http-load-client.js", import.meta.url));
  // From the sources (tsx) there is no .js beside this file: run the .ts through tsx.
  const [script, execArgv] = existsSync(built)
    ? [built, []]
    : [fileURLToPath(new URL("./http-load-client.ts", import.meta.url)), ["--import", "tsx"]];
  const child = fork(script, [JSON.stringify(plan)], { execArgv, stdio: "inherit" });
  return new Promise<HttpLoadFigures>((resolve, reject) => {
    child.once("message", (message: { figures?: HttpLoadFigures; error?: string }) => {
      if (message.figures) resolve(message.figures);
      else reject(new Error(`the HTTP client process failed: ${message.error ?? "no figures"}`));
    });
    child.once("error", reject);
    child.once("exit", (code) => {
      if (code !== 0) reject(new Error(`the HTTP client process exited with code ${code}`));
    });
  });
}

async function benchServe(
  dir: string,
  seconds: number,
  random: () => number,
): Promise<NonNullable<StoreBenchResult["serve"]>> {
  let startServer: typeof import("../server/listen.js").startServer;
  let autocannon: typeof import("autocannon");
  try {
    ({ startServer } = await import("../server/listen.js"));
    autocannon = (await import("autocannon")).default;
  } catch (error) {
    return { skipped: `server or autocannon not available: ${String(error)}` };
  }
  // As `shared-ctx serve` opens it.
  const store = new EmbeddedStore({ path: join(dir, "serve.db"), groupCommit: true });
  const readSubject = "bench-context";
  // Grown until it holds 320 memories, the size Statewave's /v1/context was measured at.
  let contextMemories = 0;
  while (contextMemories < 320) {
    await insertBatches(store, makeEpisodes(readSubject, 20, random));
    await store.compileMemories(readSubject);
    contextMemories = (await store.getTimeline(readSubject, { limit: 10_000 })).memories.length;
  }
  const server = await startServer({ store, port: 0 });
  try {
    const client = await runClientProcess({
      url: server.url,
      clients: 8,
      seconds,
      readSubject,
      task: "implement the auth token cache for login",
      readIterations: 300,
    });
    const body = JSON.stringify({
      subject_id: "bench-serve",
      source: "agent-1",
      type: "implementation_note",
      payload: { content: "use the shared token helper for auth" },
    });
    const creates = await autocannon({
      url: `${server.url}/v1/episodes`,
      method: "POST",
      headers: { "content-type": "application/json" },
      body,
      connections: 16,
      duration: seconds,
      // The load generator runs on its own thread, so it does not share the server's event loop.
      workers: 1,
    });
    return {
      inProcess: {
        connections: 16,
        createsPerSecond: Math.round(creates.requests.average),
        non2xx: creates.non2xx,
        errors: creates.errors,
      },
      client: { ...client, clients: 8, contextMemories },
    };
  } finally {
    await server.close();
  }
}
