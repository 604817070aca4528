import type { BenchMachine } from "./bench-machine.js";

/**
 * `bench history`'s figures, its goals and its table: pure, so that a table and a verdict can be
 * tested without timing anything.
 */

/** The backends `bench history` measures. */
export const historyBackends = ["embedded", "postgres", "serve"] as const;

/** One of {@link historyBackends}. */
export type HistoryBackend = (typeof historyBackends)[number];

/** What one subject size measured on one backend; every latency a median in ms. */
export interface HistorySizeFigures {
  /** Decisions in the subject (the oldest retires legacy-billing, each other one its own target). */
  readonly size: number;
  /** Seconds to write and compile the subject. */
  readonly seedSeconds: number;
  /** `shared-ctx check` of a legacy-billing file, as a child process, start-up included. */
  readonly checkMs: number;
  /** Whether that check refused the edit (exit 3), as it must at every size. */
  readonly checkRefused: boolean;
  readonly beforeActingMs: number;
  /** Whether `beforeActing().decisions` listed the retirement, as it must at every size. */
  readonly beforeActingListsRetirement: boolean;
  /** `SharedContext.retract` of an old decision, by its id. */
  readonly retractMs: number;
  /** `SharedContext.history` of an old decision, by its id. */
  readonly historyMs: number;
  /**
   * One timeline page of 100 at the end of the history, read as a reader paging the whole subject
   * reads it (by cursor where the store has them, else by offset).
   */
  readonly timelinePageMs: number;
  /** `shared-ctx watch --once`, as a child process. */
  readonly watchOnceMs: number;
  /** Its peak resident set, MB. */
  readonly watchRssMb: number;
  /** `shared-ctx timeline --subject`, the whole history printed, as a child process. */
  readonly timelineMs: number;
  /** Its peak resident set, MB. */
  readonly timelineRssMb: number;
}

/** One backend's figures, or why it was not measured. */
export type HistoryBackendFigures =
  | { readonly backend: HistoryBackend; readonly sizes: readonly HistorySizeFigures[] }
  | { readonly backend: HistoryBackend; readonly skipped: string };

/** Everything `bench history` measured, as the table and `--json` print it. */
export interface HistoryBenchResult {
  readonly machine: BenchMachine;
  readonly backends: readonly HistoryBackendFigures[];
  readonly totalSeconds: number;
}

/** One goal of issue 36, met or missed, with the figures that decided it. */
export interface HistoryGoal {
  readonly backend: HistoryBackend;
  readonly goal: string;
  readonly met: boolean;
  readonly detail: string;
}

/** The latencies held to "at the largest size within 2x of the same at the smallest". */
const flatFigures = [
  ["check", "checkMs"],
  ["beforeActing", "beforeActingMs"],
  ["retract by id", "retractMs"],
  ["history by id", "historyMs"],
  ["timeline page", "timelinePageMs"],
] as const satisfies ReadonlyArray<readonly [string, keyof HistorySizeFigures]>;

/** The most a flat figure may grow from the smallest size to the largest. */
export const flatFactor = 2;

/** The peak RSS `timeline` and `watch` may reach at the largest size, MB. */
export const rssLimitMb = 100;

/**
 * Issue 36's goals for one backend: each action-deciding read, retract and history by id and a
 * timeline page at the largest size within {@link flatFactor}x of the smallest; `timeline` and
 * `watch` under {@link rssLimitMb} MB at the largest; the retirement refused and listed at every
 * size. Empty with fewer than two sizes for the growth goals.
 */
export function historyGoals(figures: HistoryBackendFigures): HistoryGoal[] {
  if (!("sizes" in figures) || figures.sizes.length === 0) return [];
  const { backend } = figures;
  const sorted = [...figures.sizes].sort((left, right) => left.size - right.size);
  const smallest = sorted[0] as HistorySizeFigures;
  const largest = sorted[sorted.length - 1] as HistorySizeFigures;
  const goals: HistoryGoal[] = [];
  if (largest.size > smallest.size) {
    for (const [label, key] of flatFigures) {
      const ratio = smallest[key] > 0 ? largest[key] / smallest[key] : Number.POSITIVE_INFINITY;
      goals.push({
        backend,
        goal: `${label} at ${count(largest.size)} within ${flatFactor}x of ${count(smallest.size)}`,
        met: ratio <= flatFactor,
        detail: `${ms(smallest[key])} -> ${ms(largest[key])} (${ratio.toFixed(2)}x)`,
      });
    }
  }
  for (const [label, key] of [
    ["timeline", "timelineRssMb"],
    ["watch", "watchRssMb"],
  ] as const) {
    goals.push({
      backend,
      goal: `${label} peak RSS at ${count(largest.size)} under ${rssLimitMb} MB`,
      met: largest[key] < rssLimitMb,
      detail: `${largest[key].toFixed(0)} MB`,
    });
  }
  const unrefused = sorted.filter((row) => !row.checkRefused).map((row) => count(row.size));
  goals.push({
    backend,
    goal: "check refuses the retired module at every size",
    met: unrefused.length === 0,
    detail: unrefused.length === 0 ? "refused" : `allowed at ${unrefused.join(", ")}`,
  });
  const unlisted = sorted
    .filter((row) => !row.beforeActingListsRetirement)
    .map((row) => count(row.size));
  goals.push({
    backend,
    goal: "beforeActing lists the retirement at every size",
    met: unlisted.length === 0,
    detail: unlisted.length === 0 ? "listed" : `missing at ${unlisted.join(", ")}`,
  });
  return goals;
}

function count(size: number): string {
  return size.toLocaleString("en-US");
}

function ms(value: number): string {
  return value >= 1000 ? `${(value / 1000).toFixed(2)} s` : `${value.toFixed(1)} ms`;
}

const columns = [
  ["decisions", 9],
  ["seed s", 7],
  ["check", 9],
  ["refused", 7],
  ["bActing", 9],
  ["listed", 6],
  ["retract", 9],
  ["history", 9],
  ["page", 9],
  ["watch", 9],
  ["w MB", 5],
  ["timeline", 9],
  ["t MB", 5],
] as const;

function row(cells: readonly string[]): string {
  return cells.map((cell, index) => cell.padStart(columns[index]?.[1] ?? 0)).join("  ");
}

function sizeRow(figures: HistorySizeFigures): string {
  return row([
    count(figures.size),
    figures.seedSeconds.toFixed(1),
    ms(figures.checkMs),
    figures.checkRefused ? "yes" : "NO",
    ms(figures.beforeActingMs),
    figures.beforeActingListsRetirement ? "yes" : "NO",
    ms(figures.retractMs),
    ms(figures.historyMs),
    ms(figures.timelinePageMs),
    ms(figures.watchOnceMs),
    figures.watchRssMb.toFixed(0),
    ms(figures.timelineMs),
    figures.timelineRssMb.toFixed(0),
  ]);
}

/** The table `bench history` prints: per backend, one row per size, then each goal MET or MISSED. */
export function formatHistoryBenchTable(result: HistoryBenchResult): string {
  const { machine } = result;
  const lines = [
    `bench history: ${machine.node}, ${machine.cpus} CPUs, ${machine.platform}, load ${machine.loadBefore} -> ${machine.loadAfter}, ${result.totalSeconds.toFixed(0)} s`,
    "Medians. check, watch, timeline: child processes of the built bin (start-up included);",
    "the rest in process. page = a timeline page of 100 at the history's end; MB = peak RSS.",
  ];
  for (const figures of result.backends) {
    lines.push("", `${figures.backend}:`);
    if (!("sizes" in figures)) {
      lines.push(`  skipped: ${figures.skipped}`);
      continue;
    }
    lines.push(`  ${row(columns.map(([label]) => label))}`);
    for (const size of figures.sizes) lines.push(`  ${sizeRow(size)}`);
    for (const goal of historyGoals(figures)) {
      lines.push(`  ${goal.met ? "MET   " : "MISSED"} ${goal.goal}: ${goal.detail}`);
    }
  }
  return `${lines.join("\n")}\n`;
}
