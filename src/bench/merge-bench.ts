import { availableParallelism, loadavg, platform } from "node:os";
import { runCrdt, runLww, runTransactional } from "./merge-strategies.js";
import { cleanMerge, manyAgents, semanticConflict, typeMismatch } from "./merge-workloads.js";

/**
 * AgentSync's three-way merge harness, rebuilt: the same scripted concurrent writes go through
 * three strategies, and each row says what survived.
 *
 * - `lww`: every agent keeps a local copy and writes whole values; replicas keep the write with
 *   the latest timestamp per key (LangGraph's InMemoryStore, Letta's blocks, MCP memory).
 * - `transactional`: one store with a version per key; a write against a stale version is a
 *   conflict, settled by one "model call". The model is a deterministic local resolver (three-way
 *   merge, or "keep mine" for scalars); its calls are counted and timed, no LLM is called.
 * - `crdt`: one `StateReplica` (Loro) per agent, written without seeing the others, then merged.
 */

export type MergeStrategy = "lww" | "transactional" | "crdt";
export type MergeOutcome = "auto_merged" | "resolved" | "escalated" | "corrupted";

/** One row of the table; `--json` prints these objects. */
export interface MergeBenchRow {
  workload: string;
  strategy: MergeStrategy;
  /** `ok` when no write was silently lost and replicas agree; else what went wrong. */
  verdict: "ok" | "silent loss" | "diverged";
  outcome: MergeOutcome;
  /** Writes whose effect is gone from the final state without having been surfaced. */
  writes_lost: number;
  escalations: number;
  model_calls: number;
  /**
   * lww and crdt: from the last write until every replica holds the merged state (replicas merge
   * in parallel, as separate agent processes do: the slowest is timed). transactional: the time
   * spent in conflict resolution.
   */
  latency_ms: number;
  converged: boolean;
}

/** Per-write cost of a strategy on one workload. */
export interface WriteCost {
  strategy: MergeStrategy;
  /** Writing, publishing and merging into every replica, divided by the number of writes. */
  microsecondsPerWrite: number;
  /** The same in CPU time of this process: what a busy machine inflates least. */
  cpuMicrosecondsPerWrite: number;
}

/** On one many_agents workload, each crdt replica's merge time. */
export interface CrdtMergeTimes {
  workload: string;
  replicas: number;
  medianMs: number;
  /** The row's latency_ms: the time for every replica to converge, merging in parallel. */
  slowestMs: number;
  /** The same merges in CPU time of this process (waiting for a core on a busy machine excluded). */
  medianCpuMs: number;
  slowestCpuMs: number;
}

/** One of the targets issue 12 sets, judged on this run. */
export interface MergeBenchTarget {
  name: string;
  /** `not run` when the run left out the workload the target is about (e.g. `--quick`). */
  status: "MET" | "MISSED" | "not run";
  /** The measured figure, e.g. `206.3 ms` or `8.1x`. */
  measured?: string;
}

export interface MergeBenchResult {
  rows: MergeBenchRow[];
  /** On the target workload (many_agents with 64 agents, else the largest run). */
  writeCosts: WriteCost[];
  /** Per many_agents workload, every strategy's cost per write. */
  costs: Array<{ workload: string; writeCosts: WriteCost[] }>;
  /** On the target workload: each crdt replica's merge (import, then the whole state as JSON). */
  crdtMerge?: { replicas: number; medianMs: number; slowestMs: number };
  /** Per many_agents workload. */
  crdtMerges: CrdtMergeTimes[];
  targets: MergeBenchTarget[];
  /** The machine, and its 1-minute load average when the run started and ended. */
  machine: { node: string; cpus: number; platform: string; loadStart: number; loadEnd: number };
  totalSeconds: number;
}

export interface MergeBenchOptions {
  /** Agents of the many_agents workload. @default [2, 8, 64, 256] */
  agentCounts?: readonly number[];
  /** Writes per agent in many_agents. @default 100 */
  writesPerAgent?: number;
  /** Milliseconds clock for timings. @default performance.now */
  now?: () => number;
  /** CPU milliseconds this process has used. @default process.cpuUsage, user + system */
  cpuNow?: () => number;
  /** Told what is about to run, for a progress line (the whole run takes minutes). */
  onProgress?: (message: string) => void;
  /** The 1-minute load average. @default os.loadavg()[0] */
  loadAverage?: () => number;
}

/** The workload the targets are about. */
export const targetAgents = 64;
/** Slowest replica's merge on many_agents(64x100). */
export const convergeTargetMs = 250;
/** crdt's cost per write against lww's on many_agents(64x100). */
export const costRatioTarget = 10;

const round = (value: number, digits = 1) => Number(value.toFixed(digits));

const perWrite = (run: { cost: number; cpuCost: number }) => ({
  microsecondsPerWrite: run.cost * 1000,
  cpuMicrosecondsPerWrite: run.cpuCost * 1000,
});

/**
 * Runs every workload through every strategy. Pure: timing comes from `now`, the load from
 * `loadAverage`.
 */
export function runMergeBench(options: MergeBenchOptions = {}): MergeBenchResult {
  const now = options.now ?? (() => performance.now());
  const cpu =
    options.cpuNow ??
    (() => {
      const usage = process.cpuUsage();
      return (usage.user + usage.system) / 1000;
    });
  const progress = options.onProgress ?? (() => {});
  const loadAverage = options.loadAverage ?? (() => loadavg()[0] ?? 0);
  const counts = options.agentCounts ?? [2, 8, 64, 256];
  const writesPerAgent = options.writesPerAgent ?? 100;
  const loadStart = round(loadAverage(), 2);
  const started = now();
  const workloads = [
    cleanMerge(),
    semanticConflict(),
    typeMismatch(),
    ...counts.map((count) => manyAgents(count, writesPerAgent)),
  ];
  const rows: MergeBenchRow[] = [];
  const costs: MergeBenchResult["costs"] = [];
  const crdtMerges: CrdtMergeTimes[] = [];
  workloads.forEach((workload, index) => {
    const writes = workload.scripts.reduce((total, script) => total + script.length, 0);
    const step = `[${index + 1}/${workloads.length}] ${workload.name}: ${workload.agents.length} agents, ${writes} writes`;
    progress(`${step}: lww`);
    const lww = runLww(workload, now, cpu);
    progress(`${step}: transactional`);
    const transactional = runTransactional(workload, now, cpu);
    progress(`${step}: crdt`);
    const crdt = runCrdt(workload, now, cpu);
    rows.push(lww.row, transactional.row, crdt.row);
    if (!workload.name.startsWith("many_agents")) return;
    costs.push({
      workload: workload.name,
      writeCosts: [
        { strategy: "lww", ...perWrite(lww) },
        { strategy: "transactional", ...perWrite(transactional) },
        { strategy: "crdt", ...perWrite(crdt) },
      ],
    });
    const times = [...crdt.mergeTimes].sort((left, right) => left - right);
    const cpuTimes = [...crdt.mergeCpu].sort((left, right) => left - right);
    crdtMerges.push({
      workload: workload.name,
      replicas: times.length,
      medianMs: times[Math.floor(times.length / 2)] ?? 0,
      slowestMs: times[times.length - 1] ?? 0,
      medianCpuMs: cpuTimes[Math.floor(cpuTimes.length / 2)] ?? 0,
      slowestCpuMs: cpuTimes[cpuTimes.length - 1] ?? 0,
    });
  });
  const targetName = `many_agents(${targetAgents}x100)`;
  const targetCosts =
    costs.find((item) => item.workload === targetName) ??
    costs.find((item) => item.workload.startsWith(`many_agents(${targetAgents}x`)) ??
    costs.at(-1);
  const targetMerge = crdtMerges.find((item) => item.workload === targetCosts?.workload);
  return {
    rows,
    writeCosts: targetCosts?.writeCosts ?? [],
    costs,
    crdtMerge: targetMerge && {
      replicas: targetMerge.replicas,
      medianMs: targetMerge.medianMs,
      slowestMs: targetMerge.slowestMs,
    },
    crdtMerges,
    targets: judgeTargets(rows, costs, crdtMerges),
    machine: {
      node: process.version,
      cpus: availableParallelism(),
      platform: platform(),
      loadStart,
      loadEnd: round(loadAverage(), 2),
    },
    totalSeconds: round((now() - started) / 1000),
  };
}

/** Each target of issue 12, on a run's rows; `not run` when its workload was left out. */
export function judgeTargets(
  rows: readonly MergeBenchRow[],
  costs: MergeBenchResult["costs"],
  merges: readonly CrdtMergeTimes[],
): MergeBenchTarget[] {
  const crdtRows = rows.filter((row) => row.strategy === "crdt");
  const status = (met: boolean) => (met ? "MET" : "MISSED");
  const workload = `many_agents(${targetAgents}x100)`;
  const merge = merges.find((item) => item.workload === workload);
  const cost = costs.find((item) => item.workload === workload)?.writeCosts;
  const perWrite = (strategy: MergeStrategy, key: keyof Omit<WriteCost, "strategy">) =>
    cost?.find((item) => item.strategy === strategy)?.[key] ?? 0;
  const ratioOf = (key: keyof Omit<WriteCost, "strategy">) =>
    perWrite("lww", key) > 0
      ? perWrite("crdt", key) / perWrite("lww", key)
      : Number.POSITIVE_INFINITY;
  const ratio = ratioOf("microsecondsPerWrite");
  return [
    {
      name: "crdt loses 0 writes on every workload",
      status: status(crdtRows.every((row) => row.writes_lost === 0)),
      measured: `${crdtRows.reduce((total, row) => total + row.writes_lost, 0)} lost`,
    },
    {
      name: "crdt replicas converge to identical state on every workload",
      status: status(crdtRows.every((row) => row.converged)),
    },
    merge
      ? {
          name: `${workload} crdt converges in <= ${convergeTargetMs} ms (slowest replica)`,
          status: status(merge.slowestMs <= convergeTargetMs),
          // Judged on the wall clock; the CPU figure says how much of it was waiting for a core.
          measured: `${merge.slowestMs.toFixed(1)} ms; CPU ${merge.slowestCpuMs.toFixed(1)} ms`,
        }
      : { name: `${workload} crdt converges in <= ${convergeTargetMs} ms`, status: "not run" },
    cost
      ? {
          name: `${workload} crdt cost per write <= ${costRatioTarget}x lww`,
          status: status(ratio <= costRatioTarget),
          measured: `${ratio.toFixed(1)}x; CPU ${ratioOf("cpuMicrosecondsPerWrite").toFixed(1)}x`,
        }
      : { name: `${workload} crdt cost per write <= ${costRatioTarget}x lww`, status: "not run" },
  ];
}

const columns: Array<keyof MergeBenchRow> = [
  "workload",
  "strategy",
  "verdict",
  "outcome",
  "writes_lost",
  "escalations",
  "model_calls",
  "latency_ms",
  "converged",
];

/** The table `shared-ctx bench merge` prints, with the machine, per-write costs and targets. */
export function formatMergeBenchTable(result: MergeBenchResult): string {
  const cells = result.rows.map((row) =>
    columns.map((column) =>
      column === "latency_ms" ? row.latency_ms.toFixed(1) : String(row[column]),
    ),
  );
  const widths = columns.map((column, index) =>
    Math.max(column.length, ...cells.map((line) => line[index]?.length ?? 0)),
  );
  const format = (line: readonly string[]) =>
    line
      .map((cell, index) => cell.padEnd(widths[index] ?? 0))
      .join("  ")
      .trimEnd();
  const { machine } = result;
  const lines = [
    `shared-ctx bench merge — Node ${machine.node}, ${machine.cpus} CPUs, ${machine.platform}, load ${machine.loadStart} at start, ${machine.loadEnd} at end`,
    "",
    format(columns),
    format(widths.map((width) => "-".repeat(width))),
  ];
  for (const line of cells) lines.push(format(line));
  lines.push(
    "",
    "Cost per write (write, publish, merge into every replica), wall clock [CPU time of this process]:",
  );
  type CostKey = "microsecondsPerWrite" | "cpuMicrosecondsPerWrite";
  for (const { workload, writeCosts } of result.costs) {
    const cost = (strategy: MergeStrategy, key: CostKey) =>
      writeCosts.find((item) => item.strategy === strategy)?.[key] ?? 0;
    const ratio = (key: CostKey) =>
      cost("lww", key) > 0 ? (cost("crdt", key) / cost("lww", key)).toFixed(1) : "-";
    const strategies = (["lww", "transactional", "crdt"] as const).map(
      (strategy) =>
        `${strategy} ${cost(strategy, "microsecondsPerWrite").toFixed(1)} µs [${cost(strategy, "cpuMicrosecondsPerWrite").toFixed(1)}]`,
    );
    lines.push(
      `  ${workload}: ${strategies.join(", ")}; crdt/lww ${ratio("microsecondsPerWrite")}x [${ratio("cpuMicrosecondsPerWrite")}x]`,
    );
  }
  lines.push(
    "crdt merge per replica (import the other agents' updates, then the state as JSON), wall clock [CPU time]:",
  );
  for (const merge of result.crdtMerges) {
    lines.push(
      `  ${merge.workload}: median ${merge.medianMs.toFixed(1)} ms [${merge.medianCpuMs.toFixed(1)}], slowest ${merge.slowestMs.toFixed(1)} ms [${merge.slowestCpuMs.toFixed(1)}] (${merge.replicas} replicas)`,
    );
  }
  lines.push(
    "transactional's model calls are a deterministic local resolver (three-way merge, or keep the caller's scalar), counted and timed: no LLM is called.",
    "latency_ms: lww and crdt, the slowest single replica's merge, from holding only its own writes to holding the merged state (crdt: one batch import of the other agents' updates, then the whole state derived as JSON; lww: applying the whole write log). Replicas are timed one at a time in this process; agents merge in parallel, each in its own process, so the slowest one is the time to converge. transactional: time in conflict resolution.",
    "",
    "Targets:",
    ...result.targets.map(
      (target) =>
        `  ${target.status.padEnd(7)} ${target.name}${target.measured ? ` (${target.measured})` : ""}`,
    ),
    "",
    `(one run, ${result.totalSeconds} s)`,
  );
  return `${lines.join("\n")}\n`;
}
