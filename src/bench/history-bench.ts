import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { ContextStore, CreateEpisodeInput } from "../context/context-store.js";
import { EmbeddedStore } from "../context/embedded/embedded-store.js";
import { targetOf } from "../context/memory-metadata.js";
import { openContextStore } from "../context/open-context-store.js";
import { SharedContext } from "../context/shared-context.js";
import { benchMachine, loadAverage } from "./bench-machine.js";
import type {
  HistoryBackend,
  HistoryBackendFigures,
  HistoryBenchResult,
  HistorySizeFigures,
} from "./history-bench-table.js";
import { type ChildRun, runChild, writeRssProbe } from "./history-child.js";
import { median, round, timeCalls } from "./latency.js";

/**
 * `shared-ctx bench history`: what a subject of 10 … 50,000 decisions costs to read before acting,
 * to retract from, to page and to watch, on each backend. A benchmark, never a test.
 */

/** Options of {@link runHistoryBench}. */
export interface HistoryBenchOptions {
  /** An empty folder for the database files and the project the children run in. */
  readonly dir: string;
  /** Decisions per subject. */
  readonly sizes: readonly number[];
  readonly backends: readonly HistoryBackend[];
  /** The Postgres database for the `postgres` backend (bench subjects are deleted afterwards). */
  readonly databaseUrl?: string;
  /** The built bin the child processes run. @default this package's bin/shared-ctx.js */
  readonly bin?: string;
  /** Samples per in-process figure (children: this many below 10,000 decisions, else one). @default 3 */
  readonly repeats?: number;
  readonly onProgress?: (message: string) => void;
}

const defaultBin = fileURLToPath(new URL("../../bin/shared-ctx.js", import.meta.url));

/** The module the oldest decision retires, and a file of it. */
const retiredModule = "legacy-billing";
const retiredFile = "src/legacy-billing/invoice.ts";

/** A store to seed and one to read through (the same, except through `serve`), with its flags. */
interface BackendSetup {
  readonly seed: ContextStore;
  readonly read: ContextStore;
  /** The store flags of `check` (a coding agent's command) and of `watch`/`timeline`. */
  readonly checkFlags: readonly string[];
  readonly viewFlags: readonly string[];
  close(): Promise<void>;
}

/** The retirement first, then one decision per target: every one of them stays active. */
function decisionEpisodes(subjectId: string, size: number): CreateEpisodeInput[] {
  const episodes: CreateEpisodeInput[] = [
    {
      subjectId,
      source: "architect",
      type: "architectural_decision",
      payload: { content: `Retire ${retiredModule}`, target: retiredModule },
    },
  ];
  for (let index = 1; index < size; index += 1) {
    episodes.push({
      subjectId,
      source: `agent-${index % 8}`,
      type: "architectural_decision",
      payload: { content: `Use approach ${index} for area-${index}`, target: `area-${index}` },
    });
  }
  return episodes;
}

/** Writes the subject in batches of 100 (the most one batch takes), then compiles it once. */
async function seed(store: ContextStore, subjectId: string, size: number): Promise<number> {
  const started = performance.now();
  const episodes = decisionEpisodes(subjectId, size);
  for (let start = 0; start < episodes.length; start += 100) {
    await store.createEpisodesBatch(episodes.slice(start, start + 100));
  }
  await store.compileMemories(subjectId);
  return round((performance.now() - started) / 1000);
}

async function openBackend(
  backend: HistoryBackend,
  options: HistoryBenchOptions,
): Promise<BackendSetup | string> {
  const env = { ...process.env };
  if (backend === "postgres") {
    const databaseUrl = options.databaseUrl;
    if (databaseUrl === undefined) return "no --database-url";
    const store = await openContextStore({ store: "postgres", databaseUrl, env });
    return {
      seed: store,
      read: store,
      checkFlags: ["--store", "postgres", "--database-url", databaseUrl],
      viewFlags: ["--database-url", databaseUrl],
      close: () => store.close(),
    };
  }
  const db = join(options.dir, `${backend}.db`);
  // As `shared-ctx serve` opens it (serve takes the class, with its tenants).
  const embedded = new EmbeddedStore({ path: db });
  if (backend === "embedded") {
    const flags = ["--store", "embedded", "--db", db];
    return {
      seed: embedded,
      read: embedded,
      checkFlags: flags,
      viewFlags: flags,
      close: () => embedded.close(),
    };
  }
  const { startServer } = await import("../server/listen.js");
  const server = await startServer({ store: embedded, port: 0 });
  const client = await openContextStore({ store: "statewave", url: server.url, env });
  const flags = ["--store", "statewave", "--url", server.url];
  return {
    seed: embedded,
    read: client,
    checkFlags: flags,
    viewFlags: flags,
    close: async () => {
      await client.close();
      await server.close();
    },
  };
}

/** The project folder `check` runs in: legacy-billing is a module of it. */
function writeProject(dir: string): string {
  const root = join(dir, "project");
  mkdirSync(root, { recursive: true });
  writeFileSync(
    join(root, "shared-ctx.config.json"),
    JSON.stringify({ modules: { [retiredModule]: ["src/legacy-billing/**"] } }),
  );
  return root;
}

/** The median wall time of `runs`, their largest RSS, and why the first failure failed. */
function summarise(runs: readonly ChildRun[], accept: (run: ChildRun) => boolean, what: string) {
  const failed = runs.find((run) => !accept(run));
  if (failed !== undefined) {
    throw new Error(
      `${what} exited ${failed.code}: ${failed.stderr.trim().split("\n")[0] ?? ""}`.trim(),
    );
  }
  return {
    wallMs: round(median(runs.map((run) => run.wallMs))),
    rssMb: round(Math.max(...runs.map((run) => run.rssMb))),
  };
}

async function repeatChild(
  times: number,
  bin: string,
  args: readonly string[],
  options: { probe: string; cwd: string },
): Promise<ChildRun[]> {
  const runs: ChildRun[] = [];
  for (let index = 0; index < times; index += 1) runs.push(await runChild(bin, args, options));
  return runs;
}

/** The ids of the oldest decisions after the retirement, for retract and history by id. */
async function oldDecisionIds(store: ContextStore, subjectId: string): Promise<string[]> {
  const first = await store.getTimeline(subjectId, { limit: 100 });
  return first.memories
    .filter((memory) => memory.status === "active" && targetOf(memory) !== retiredModule)
    .map((memory) => memory.id);
}

/**
 * Reads one page of 100 at the end of the history, as a reader paging through the subject reads
 * it: by the cursor of the page before (found by paging through, untimed) where the store hands
 * out cursors, else by offset (what a store without cursors costs there).
 */
async function newestPageReader(
  store: ContextStore,
  subjectId: string,
  size: number,
): Promise<() => Promise<unknown>> {
  let page = await store.getTimeline(subjectId, { limit: 500 });
  let last: string | undefined;
  while (typeof page.nextCursor === "string") {
    last = page.nextCursor;
    page = await store.getTimeline(subjectId, { limit: 500, cursor: last });
  }
  const cursor = last;
  if (cursor === undefined) {
    return () => store.getTimeline(subjectId, { limit: 100, offset: Math.max(0, size - 100) });
  }
  return () => store.getTimeline(subjectId, { limit: 100, cursor });
}

/** The in-process figures: beforeActing, retract and history by id, one timeline page. */
async function inProcess(store: ContextStore, subjectId: string, size: number, repeats: number) {
  const shared = new SharedContext({ store, subjectId });
  let listed = true;
  try {
    const reads = await timeCalls(repeats, async () => {
      const read = await shared.beforeActing("bench-reader", `change ${retiredModule}`);
      listed &&= read.decisions.some((memory) => targetOf(memory) === retiredModule);
    });
    const ids = await oldDecisionIds(store, subjectId);
    const count = Math.min(repeats, ids.length);
    const history = await timeCalls(count, (index) => shared.history(ids[index] ?? ""));
    const retracts = await timeCalls(count, (index) =>
      shared.retract("bench-admin", ids[index] ?? "", { reason: "bench" }),
    );
    const readPage = await newestPageReader(store, subjectId, size);
    const pages = await timeCalls(repeats, readPage);
    return {
      beforeActingMs: round(median(reads)),
      beforeActingListsRetirement: listed,
      historyMs: round(median(history)),
      retractMs: round(median(retracts)),
      timelinePageMs: round(median(pages)),
    };
  } finally {
    await shared.close();
  }
}

async function measureSize(
  setup: BackendSetup,
  context: { options: HistoryBenchOptions; probe: string; root: string; subjectId: string },
  size: number,
): Promise<HistorySizeFigures> {
  const { options, probe, root, subjectId } = context;
  const bin = options.bin ?? defaultBin;
  const repeats = options.repeats ?? 3;
  const say = options.onProgress ?? (() => undefined);
  const seedSeconds = await seed(setup.seed, subjectId, size);
  say(`  seeded ${size} decisions in ${seedSeconds} s; check, beforeActing, retract, page`);
  const childTimes = size >= 10_000 ? 1 : repeats;
  const child = { probe, cwd: root };
  const checkArgs = ["check", "--agent", "bench-editor", "--path", retiredFile, "--root", root];
  const checks = await repeatChild(
    childTimes,
    bin,
    [...checkArgs, "--subject", subjectId, ...setup.checkFlags],
    child,
  );
  const check = summarise(checks, (run) => run.code === 0 || run.code === 3, "check");
  const reads = await inProcess(setup.read, subjectId, size, repeats);
  say(`  watch --once, timeline --subject`);
  const watchRuns = await repeatChild(
    childTimes,
    bin,
    ["watch", subjectId, "--once", ...setup.viewFlags],
    child,
  );
  const watch = summarise(watchRuns, (run) => run.code === 0, "watch --once");
  const timelineRuns = await repeatChild(
    childTimes,
    bin,
    ["timeline", "--subject", subjectId, "--plain", ...setup.viewFlags],
    child,
  );
  const timeline = summarise(timelineRuns, (run) => run.code === 0, "timeline --subject");
  return {
    size,
    seedSeconds,
    checkMs: check.wallMs,
    checkRefused: checks.every((run) => run.code === 3),
    ...reads,
    watchOnceMs: watch.wallMs,
    watchRssMb: watch.rssMb,
    timelineMs: timeline.wallMs,
    timelineRssMb: timeline.rssMb,
  };
}

async function measureBackend(
  backend: HistoryBackend,
  options: HistoryBenchOptions,
  shared: { probe: string; root: string; runTag: string },
): Promise<HistoryBackendFigures> {
  const say = options.onProgress ?? (() => undefined);
  const setup = await openBackend(backend, options);
  if (typeof setup === "string") return { backend, skipped: setup };
  const sizes: HistorySizeFigures[] = [];
  const subjects: string[] = [];
  try {
    for (const size of options.sizes) {
      const subjectId = `bench-history-${shared.runTag}-${size}`;
      subjects.push(subjectId);
      say(`${backend}: ${size} decisions`);
      sizes.push(await measureSize(setup, { options, ...shared, subjectId }, size));
    }
  } finally {
    // A shared database keeps nothing of the bench; the embedded files go with the scratch folder.
    if (backend === "postgres") {
      for (const subjectId of subjects) await setup.seed.deleteSubject(subjectId);
    }
    await setup.close();
  }
  return { backend, sizes };
}

/** Measures every backend at every size; a backend that cannot run says why in its place. */
export async function runHistoryBench(options: HistoryBenchOptions): Promise<HistoryBenchResult> {
  const started = performance.now();
  const loadBefore = loadAverage(2);
  const probe = writeRssProbe(options.dir);
  const root = writeProject(options.dir);
  const runTag = Date.now().toString(36);
  const backends: HistoryBackendFigures[] = [];
  for (const backend of options.backends) {
    backends.push(await measureBackend(backend, options, { probe, root, runTag }));
  }
  return {
    machine: benchMachine({ loadBefore, loadAfter: loadAverage(2) }),
    backends,
    totalSeconds: round((performance.now() - started) / 1000),
  };
}
