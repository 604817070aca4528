import { type ChildProcess, spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { availableParallelism, loadavg } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { ContextStore, CreateEpisodeInput } from "../context/context-store.js";
import { EmbeddedStore } from "../context/embedded/embedded-store.js";
import { redactDatabaseUrl } from "../context/postgres/database-url.js";
import { PostgresStore } from "../context/postgres/postgres-store.js";
import { makeEpisodes } from "./bench-episodes.js";
import { type LatencyFigures, latency } from "./latency.js";

/**
 * `shared-ctx bench store --database-url …`: the Postgres store beside the embedded store on the
 * same machine. Ingest: 8 HTTP clients creating episodes one at a time through 1, 2 and 3
 * `shared-ctx serve` replica processes on one database (and through one embedded `serve`);
 * context: getContext p50/p95 on one subject grown to each size, in process.
 */
export interface PostgresBenchOptions {
  databaseUrl: string;
  /** Folder for the embedded store's file. */
  dir: string;
  /** Subject sizes for getContext. @default [10_000, 100_000] */
  sizes?: readonly number[];
  /** Replica counts for ingest. @default [1, 2, 3] */
  replicas?: readonly number[];
  /** Seconds each ingest run lasts. @default 5 */
  ingestSeconds?: number;
  /** HTTP clients. @default 8 */
  clients?: number;
  onProgress?: (message: string) => void;
}

/** One ingest run: creates per second through `replicas` serve processes. */
export interface IngestFigures {
  store: "postgres" | "embedded";
  replicas: number;
  /** `one`: every client writes the same subject (the agents of one run); `own`: a subject each. */
  subjects: "one" | "own";
  createsPerSecond: number;
  created: number;
}

/** getContext at one size, for one store. */
export interface ContextFigures {
  store: "postgres" | "embedded";
  episodes: number;
  memories: number;
  /** Seconds to load the episodes (batches of 100) and compile them. */
  loadSeconds: number;
  compileSeconds: number;
  getContext: LatencyFigures;
}

export interface PostgresBenchResult {
  machine: { node: string; cpus: number; platform: string; load: number; postgres: string };
  database: string;
  clients: number;
  ingest: IngestFigures[];
  context: ContextFigures[];
  seconds: number;
}

const binPath = fileURLToPath(new URL("../../bin/shared-ctx.js", import.meta.url));

interface Replica {
  url: string;
  child: ChildProcess;
}

/** Starts `shared-ctx serve` as its own process on a free port; resolves with its URL. */
function startReplica(args: readonly string[]): Promise<Replica> {
  const child = spawn(process.execPath, [binPath, "serve", "--port", "0", ...args], {
    env: { ...process.env, SHARED_CTX_API_KEY: "" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  return new Promise((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
      if (match?.[1]) resolve({ url: match[1], child });
    };
    child.stdout?.on("data", onData);
    child.stderr?.on("data", onData);
    child.once("exit", () => reject(new Error(`serve exited before listening: ${output.trim()}`)));
  });
}

async function stopReplicas(replicas: readonly Replica[]): Promise<void> {
  await Promise.all(
    replicas.map(
      (replica) =>
        new Promise<void>((resolve) => {
          if (replica.child.exitCode !== null) return resolve();
          replica.child.once("exit", () => resolve());
          replica.child.kill("SIGTERM");
        }),
    ),
  );
}

/** `clients` loops, each POSTing one episode at a time to its replica until the time is up. */
async function hammer(
  urls: readonly string[],
  clients: number,
  seconds: number,
  subjectOf: (client: number) => string,
): Promise<{ created: number; createsPerSecond: number }> {
  const started = performance.now();
  const deadline = started + seconds * 1000;
  const counts = await Promise.all(
    Array.from({ length: clients }, async (_, client) => {
      const url = `${urls[client % urls.length]}/v1/episodes`;
      let created = 0;
      while (performance.now() < deadline) {
        const response = await fetch(url, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({
            subject_id: subjectOf(client),
            source: `client-${client}`,
            type: "implementation_note",
            payload: { content: `client ${client} step ${created}` },
          }),
        });
        await response.arrayBuffer();
        if (!response.ok) throw new Error(`POST ${url} answered ${response.status}`);
        created += 1;
      }
      return created;
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  const created = counts.reduce((sum, count) => sum + count, 0);
  return { created, createsPerSecond: Math.round(created / elapsed) };
}

function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1_664_525) + 1_013_904_223) >>> 0;
    return state / 4_294_967_296;
  };
}

const taskWords =
  "auth token session cache database schema api endpoint payment user deploy search".split(" ");

async function measureContext(
  store: ContextStore,
  name: "postgres" | "embedded",
  subjectId: string,
  episodes: readonly CreateEpisodeInput[],
  onProgress: (message: string) => void,
  settle: () => Promise<void> = async () => undefined,
): Promise<ContextFigures> {
  onProgress(`${name}: loading ${episodes.length.toLocaleString("en-US")} episodes`);
  const loadStarted = performance.now();
  for (let start = 0; start < episodes.length; start += 100) {
    await store.createEpisodesBatch(episodes.slice(start, start + 100));
  }
  const loadSeconds = (performance.now() - loadStarted) / 1000;
  const compileStarted = performance.now();
  const compiled = await store.compileMemories(subjectId);
  const compileSeconds = (performance.now() - compileStarted) / 1000;
  await settle();
  const random = seeded(episodes.length);
  const pick = () => taskWords[Math.floor(random() * taskWords.length)] ?? "auth";
  const tasks = Array.from({ length: 20 }, () => `implement the ${pick()} ${pick()} for ${pick()}`);
  // Warm-up: prepared statements, caches.
  for (const task of tasks) await store.getContext(subjectId, task);
  onProgress(`${name}: timing getContext at ${episodes.length.toLocaleString("en-US")}`);
  const samples: number[] = [];
  for (let index = 0; index < 200; index += 1) {
    const started = performance.now();
    await store.getContext(subjectId, tasks[index % tasks.length] ?? "implement");
    samples.push(performance.now() - started);
  }
  return {
    store: name,
    episodes: episodes.length,
    memories: compiled.memoriesCreated,
    loadSeconds: Math.round(loadSeconds * 10) / 10,
    compileSeconds: Math.round(compileSeconds * 10) / 10,
    getContext: latency(samples),
  };
}

/** Runs the benchmark; deletes every subject it wrote before returning. */
export async function runPostgresBench(
  options: PostgresBenchOptions,
): Promise<PostgresBenchResult> {
  const onProgress = options.onProgress ?? (() => undefined);
  const clients = options.clients ?? 8;
  const started = performance.now();
  const run = randomUUID().slice(0, 8);
  // Every subject the run writes, deleted at the end whatever happened.
  const written: string[] = [];
  const store = new PostgresStore({ url: options.databaseUrl });
  try {
    await store.connect();
    const ingest = [
      ...(await ingestThroughReplicas(options, run, written)),
      ...(await ingestThroughEmbeddedServe(options)),
    ];
    const context = await measureContexts(store, options, run, written);
    return {
      machine: {
        node: process.version,
        cpus: availableParallelism(),
        platform: process.platform,
        load: Math.round((loadavg()[0] ?? 0) * 100) / 100,
        postgres: await serverVersion(options.databaseUrl),
      },
      database: redactDatabaseUrl(options.databaseUrl),
      clients,
      ingest,
      context,
      seconds: Math.round((performance.now() - started) / 100) / 10,
    };
  } finally {
    onProgress("cleaning up the bench subjects");
    for (const subjectId of new Set(written))
      await store.deleteSubject(subjectId).catch(() => undefined);
    await store.close();
  }
}

/** Creates per second through 1, 2, 3 … `serve` replicas of one database, on one subject and on many. */
async function ingestThroughReplicas(
  options: PostgresBenchOptions,
  run: string,
  written: string[],
): Promise<IngestFigures[]> {
  const onProgress = options.onProgress ?? (() => undefined);
  const clients = options.clients ?? 8;
  const seconds = options.ingestSeconds ?? 5;
  const ingest: IngestFigures[] = [];
  for (const count of options.replicas ?? [1, 2, 3]) {
    onProgress(`starting ${count} serve replica(s) on ${redactDatabaseUrl(options.databaseUrl)}`);
    const replicas = await Promise.all(
      Array.from({ length: count }, () => startReplica(["--database-url", options.databaseUrl])),
    );
    try {
      for (const subjects of ["one", "own"] as const) {
        const subjectOf = (client: number) =>
          subjects === "one" ? `bench-${run}-ingest` : `bench-${run}-ingest-${client}`;
        for (let client = 0; client < clients; client += 1) written.push(subjectOf(client));
        onProgress(`ingest: ${clients} clients, ${count} replica(s), ${subjects} subject(s)`);
        const figures = await hammer(
          replicas.map((replica) => replica.url),
          clients,
          seconds,
          subjectOf,
        );
        ingest.push({ store: "postgres", replicas: count, subjects, ...figures });
      }
    } finally {
      await stopReplicas(replicas);
    }
  }
  return ingest;
}

/** The same ingest through one `serve` of an embedded file, for comparison. */
async function ingestThroughEmbeddedServe(options: PostgresBenchOptions): Promise<IngestFigures[]> {
  const clients = options.clients ?? 8;
  const seconds = options.ingestSeconds ?? 5;
  options.onProgress?.("ingest: the embedded store through one serve, for comparison");
  const ingest: IngestFigures[] = [];
  const embeddedServe = await startReplica(["--db", join(options.dir, "served.db")]);
  try {
    for (const subjects of ["one", "own"] as const) {
      const figures = await hammer([embeddedServe.url], clients, seconds, (client) =>
        subjects === "one" ? "ingest" : `ingest-${client}`,
      );
      ingest.push({ store: "embedded", replicas: 1, subjects, ...figures });
    }
  } finally {
    await stopReplicas([embeddedServe]);
  }
  return ingest;
}

/** getContext at each size, on Postgres and on an embedded file holding the same episodes. */
async function measureContexts(
  store: PostgresStore,
  options: PostgresBenchOptions,
  run: string,
  written: string[],
): Promise<ContextFigures[]> {
  const onProgress = options.onProgress ?? (() => undefined);
  const context: ContextFigures[] = [];
  for (const size of options.sizes ?? [10_000, 100_000]) {
    const subjectId = `bench-${run}-context-${size}`;
    written.push(subjectId);
    const episodes = makeEpisodes(subjectId, size, seeded(size));
    context.push(
      await measureContext(store, "postgres", subjectId, episodes, onProgress, () =>
        vacuumAnalyze(options.databaseUrl, onProgress),
      ),
    );
    const embedded = new EmbeddedStore({ path: join(options.dir, `context-${size}.db`) });
    try {
      context.push(await measureContext(embedded, "embedded", subjectId, episodes, onProgress));
    } finally {
      await embedded.close();
    }
  }
  return context;
}

/**
 * What autovacuum does within a minute of a bulk load (visibility map, hint bits, planner
 * statistics), done now: the figures are the steady state a live database runs in, not the
 * first minute after a 100k-row load.
 */
async function vacuumAnalyze(url: string, onProgress: (message: string) => void): Promise<void> {
  onProgress("postgres: VACUUM (ANALYZE), as autovacuum would after the load");
  const { default: pg } = await import("pg");
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query("VACUUM (ANALYZE) episodes, memories, term_stats, compile_state, subjects");
  } finally {
    await client.end().catch(() => undefined);
  }
}

async function serverVersion(url: string): Promise<string> {
  const { default: pg } = await import("pg");
  const client = new pg.Client({ connectionString: url });
  try {
    await client.connect();
    const result = await client.query<{ server_version: string }>("SHOW server_version");
    return result.rows[0]?.server_version ?? "unknown";
  } catch {
    return "unknown";
  } finally {
    await client.end().catch(() => undefined);
  }
}

function pad(text: string, width: number): string {
  return text.length >= width ? `${text}  ` : text.padEnd(width);
}

function formatNumber(value: number): string {
  return value.toLocaleString("en-US");
}

/** The figures as a plain-text table. */
export function formatPostgresBenchTable(result: PostgresBenchResult): string {
  const { machine } = result;
  const lines = [
    `shared-ctx bench store --database-url — Node ${machine.node}, PostgreSQL ${machine.postgres}, ${machine.cpus} CPUs, ${machine.platform}, load ${machine.load}`,
    `database ${result.database}`,
    "",
    `Ingest: ${result.clients} HTTP clients, one createEpisode per request, through shared-ctx serve`,
  ];
  for (const row of result.ingest) {
    const label = `${row.store === "postgres" ? "Postgres" : "embedded (SQLite file)"}, ${row.replicas} replica${row.replicas > 1 ? "s" : ""}, ${row.subjects === "one" ? "one subject" : "a subject per client"}`;
    lines.push(
      `  ${pad(label, 58)}${formatNumber(row.createsPerSecond)} /s  (${formatNumber(row.created)} created)`,
    );
  }
  lines.push(
    "",
    "getContext in process (200 calls over 20 tasks), after loading in batches of 100 and one compile",
  );
  for (const row of result.context) {
    const label = `${row.store === "postgres" ? "Postgres" : "embedded"}, ${formatNumber(row.episodes)} episodes (${formatNumber(row.memories)} memories)`;
    lines.push(
      `  ${pad(label, 58)}p50 ${row.getContext.p50.toFixed(2)} ms  p95 ${row.getContext.p95.toFixed(2)} ms  (load ${row.loadSeconds} s, compile ${row.compileSeconds} s)`,
    );
  }
  lines.push("", `(one run, ${result.seconds} s)`, "");
  return lines.join("\n");
}
