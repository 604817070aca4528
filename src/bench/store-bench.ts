import { randomUUID } from "node:crypto";
import { join } from "node:path";
import Database from "better-sqlite3";
import type { CreateEpisodeInput } from "../context/context-store.js";
import { EmbeddedStore } from "../context/embedded/embedded-store.js";
import type { HttpLoadFigures, HttpLoadPlan } from "./http-load-client.js";

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

/** Latency figures in milliseconds. */
export interface LatencyFigures {
  p50: number;
  p95: number;
  samples: number;
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

/** A small seeded PRNG (mulberry32): the same data set on every run. */
function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let value = state;
    value = Math.imul(value ^ (value >>> 15), value | 1);
    value ^= value + Math.imul(value ^ (value >>> 7), value | 61);
    return ((value ^ (value >>> 14)) >>> 0) / 4294967296;
  };
}

const domainWords = (
  "auth token session cookie jwt login logout password hash bcrypt cache redis database schema " +
  "migration index query api endpoint route handler middleware validation error retry timeout " +
  "queue worker job payment invoice user account profile email notification webhook config " +
  "deploy docker build test fixture mock coverage lint format release version upload storage " +
  "bucket search ranking frontend button form modal layout theme"
).split(" ");
const verbs = "use adopt implement fix refactor remove add document review verify".split(" ");

/** Agent-like episodes: decisions with targets (so supersede happens), notes, findings, chat, state. */
export function makeEpisodes(
  subjectId: string,
  count: number,
  random: () => number,
): CreateEpisodeInput[] {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
  const episodes: CreateEpisodeInput[] = [];
  for (let index = 0; index < count; index += 1) {
    const words = [pick(verbs), pick(domainWords), pick(domainWords), pick(domainWords)];
    // A long tail of rare words, like identifiers and file names in real notes.
    for (let filler = 0; filler < 8; filler += 1) words.push(`w${Math.floor(random() * 5000)}`);
    const content = `${words.join(" ")} (step ${index})`;
    const roll = random();
    const source = `agent-${Math.floor(random() * 8)}`;
    if (roll < 0.1) {
      episodes.push({
        subjectId,
        source,
        type: "architectural_decision",
        payload: { content, target: `area.${pick(domainWords)}` },
      });
    } else if (roll < 0.25) {
      episodes.push({ subjectId, source, type: "review_finding", payload: { content } });
    } else if (roll < 0.7) {
      episodes.push({ subjectId, source, type: "implementation_note", payload: { content } });
    } else if (roll < 0.9) {
      episodes.push({ subjectId, source, type: "message", payload: { text: content } });
    } else {
      episodes.push({ subjectId, source, type: "state_update", payload: { update: "AAEC" } });
    }
  }
  return episodes;
}

function tasks(random: () => number): string[] {
  const pick = (items: readonly string[]) => items[Math.floor(random() * items.length)] as string;
  return Array.from(
    { length: 20 },
    () => `implement the ${pick(domainWords)} ${pick(domainWords)} for ${pick(domainWords)}`,
  );
}

/** p50/p95 of samples in ms. */
export function latency(samples: number[]): LatencyFigures {
  const sorted = [...samples].sort((left, right) => left - right);
  const at = (fraction: number) =>
    sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(fraction * sorted.length) - 1))] ?? 0;
  return { p50: round(at(0.5), 3), p95: round(at(0.95), 3), samples: sorted.length };
}

function round(value: number, digits: number): number {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}

/** Wall-clock samples in ms, plus the CPU time (user + system) each call used. */
async function time(
  iterations: number,
  call: (index: number) => Promise<unknown>,
): Promise<number[] & { cpu: number[] }> {
  const samples = Object.assign([] as number[], { cpu: [] as number[] });
  for (let index = 0; index < iterations; index += 1) {
    const cpuBefore = process.cpuUsage();
    const started = performance.now();
    await call(index);
    samples.push(performance.now() - started);
    const cpu = process.cpuUsage(cpuBefore);
    samples.cpu.push((cpu.user + cpu.system) / 1000);
  }
  return samples;
}

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
  const ingestCount = options.ingestCount ?? 5000;
  const sizes = options.sizes ?? [1000, 10_000, 100_000];
  const random = seededRandom(42);
  const sqliteVersion = (() => {
    const db = new Database(":memory:");
    const row = db.prepare("SELECT sqlite_version() AS version").get() as { version: string };
    db.close();
    return row.version;
  })();
  const { availableParallelism, loadavg, platform } = await import("node:os");
  const loadAverage = round(loadavg()[0] ?? 0, 2);

  progress(`ingest: ${ingestCount} single creates, ${ingestCount} in batches of 100, raw inserts`);
  const raw = rawInsertRates(options.dir, ingestCount);
  const ingestStore = new EmbeddedStore({ path: join(options.dir, "ingest.db") });
  const singles = makeEpisodes("ingest-single", ingestCount, random);
  let started = performance.now();
  for (const input of singles) await ingestStore.createEpisode(input);
  const singlePerSecond = ingestCount / ((performance.now() - started) / 1000);
  const batched = makeEpisodes("ingest-batch", ingestCount, random);
  started = performance.now();
  await insertBatches(ingestStore, batched);
  const batchPerSecond = ingestCount / ((performance.now() - started) / 1000);
  await ingestStore.close();

  const store = new EmbeddedStore({ path: join(options.dir, "context.db") });
  const subjectId = "bench-subject";
  const taskList = tasks(random);
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
    await time(20, (index) => store.getContext(subjectId, taskList[index % taskList.length] ?? ""));
    const iterations = size >= 100_000 ? 200 : 300;
    const samples = await time(iterations, (index) =>
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
      const page100 = latency(await time(200, () => store.getTimeline(subjectId)));
      const full = latency(await time(10, () => store.getTimeline(subjectId, { limit: 10_000 })));
      timeline = { episodes: size, page100, full };
    }
  }
  await store.close();

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
      sqlite: sqliteVersion,
      cpus: availableParallelism(),
      platform: `${platform()}`,
      loadAverage,
    },
    ingest: {
      singlePerSecond: Math.round(singlePerSecond),
      batchPerSecond: Math.round(batchPerSecond),
      rawPerSecond: Math.round(raw.single),
      rawBatchPerSecond: Math.round(raw.batch),
      singleToRaw: round(singlePerSecond / raw.single, 2),
      batchToRawBatch: round(batchPerSecond / raw.batch, 2),
    },
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

function pad(text: string, width: number): string {
  return text.length >= width ? text : text + " ".repeat(width - text.length);
}

function number(value: number): string {
  return Math.round(value).toLocaleString("en-US");
}

function verdict(target: string, met: boolean): string {
  return `target ${target}: ${met ? "MET" : "MISSED"}`;
}

/** The one table `bench store` prints. */
export function formatStoreBenchTable(result: StoreBenchResult): string {
  const rows: Array<[string, string, string]> = [];
  const { ingest } = result;
  rows.push(["createEpisode, one at a time", `${number(ingest.singlePerSecond)} /s`, ""]);
  rows.push(["raw better-sqlite3 insert, same pragmas", `${number(ingest.rawPerSecond)} /s`, ""]);
  rows.push([
    "  createEpisode / raw",
    `${Math.round(ingest.singleToRaw * 100)} %`,
    verdict(">= 50 %", ingest.singleToRaw >= 0.5),
  ]);
  rows.push(["createEpisodesBatch (100 per call)", `${number(ingest.batchPerSecond)} /s`, ""]);
  rows.push(["raw insert, 100 per transaction", `${number(ingest.rawBatchPerSecond)} /s`, ""]);
  rows.push(["  batch / raw batch", `${Math.round(ingest.batchToRawBatch * 100)} %`, ""]);
  for (const entry of result.context) {
    const target = entry.episodes === 10_000 ? 10 : entry.episodes === 100_000 ? 50 : undefined;
    rows.push([
      `getContext, ${number(entry.episodes)} episodes (${number(entry.memories)} memories)`,
      `p50 ${entry.p50.toFixed(2)} ms  p95 ${entry.p95.toFixed(2)} ms  (CPU p95 ${entry.cpuP95.toFixed(2)} ms)`,
      target === undefined ? "" : verdict(`p95 <= ${target} ms`, entry.p95 <= target),
    ]);
  }
  const { timeline } = result;
  if (timeline.episodes > 0)
    rows.push([
      `getTimeline, ${number(timeline.episodes)} episodes, first 100`,
      `p50 ${timeline.page100.p50.toFixed(2)} ms  p95 ${timeline.page100.p95.toFixed(2)} ms`,
      "",
    ]);
  if (timeline.episodes > 0)
    rows.push([
      `getTimeline, all ${number(timeline.episodes)}`,
      `p50 ${timeline.full.p50.toFixed(1)} ms`,
      "",
    ]);
  const { serve } = result;
  if (serve && "skipped" in serve) {
    rows.push(["serve", "skipped", serve.skipped]);
  } else if (serve) {
    const { client, inProcess } = serve;
    const failures = client.failures > 0 ? ` (${client.failures} failed)` : "";
    rows.push([
      `serve: POST /v1/episodes, ${client.clients} clients in another process`,
      `${number(client.createsPerSecond)} /s  (p50 ${client.createP50Ms.toFixed(2)} ms  p95 ${client.createP95Ms.toFixed(2)} ms)`,
      `${verdict(`>= ${number(serveTargets.createsPerSecond)} /s`, client.createsPerSecond >= serveTargets.createsPerSecond)}${failures}`,
    ]);
    rows.push([
      `serve: POST /v1/context, ${number(client.contextMemories)} memories`,
      `p50 ${client.contextP50Ms.toFixed(2)} ms  p95 ${client.contextP95Ms.toFixed(2)} ms  (p10 ${client.contextP10Ms.toFixed(2)} ms)`,
      verdict(
        `p50 <= ${serveTargets.contextP50Ms} ms`,
        client.contextP50Ms <= serveTargets.contextP50Ms,
      ),
    ]);
    rows.push([
      "serve: GET /v1/timeline, same subject, first 100",
      `p50 ${client.timelineP50Ms.toFixed(2)} ms  p95 ${client.timelineP95Ms.toFixed(2)} ms  (p10 ${client.timelineP10Ms.toFixed(2)} ms)`,
      verdict(
        `p50 <= ${serveTargets.timelineP50Ms} ms`,
        client.timelineP50Ms <= serveTargets.timelineP50Ms,
      ),
    ]);
    rows.push([
      `serve: POST /v1/episodes, autocannon in process, ${inProcess.connections} conn.`,
      `${number(inProcess.createsPerSecond)} /s`,
      inProcess.non2xx + inProcess.errors > 0
        ? `(${inProcess.non2xx} non-2xx, ${inProcess.errors} errors)`
        : "",
    ]);
  }
  const widths = [0, 1, 2].map((column) =>
    Math.max(...rows.map((row) => row[column as 0 | 1 | 2].length)),
  );
  const { machine } = result;
  const lines = [
    `shared-ctx bench store — Node ${machine.node}, SQLite ${machine.sqlite}, ${machine.cpus} CPUs, ${machine.platform}, load ${machine.loadAverage}`,
    "",
    ...rows.map(([name, value, note]) =>
      `${pad(name, widths[0] ?? 0)}  ${pad(value, widths[1] ?? 0)}  ${note}`.trimEnd(),
    ),
    "",
    `(one run, ${result.totalSeconds} s${result.loadAverageAtEnd === undefined ? "" : `; load at the end ${result.loadAverageAtEnd}`})`,
  ];
  return `${lines.join("\n")}\n`;
}
