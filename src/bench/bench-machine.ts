import { availableParallelism, loadavg, platform } from "node:os";
import { round } from "./latency.js";

/** The machine a benchmark ran on, with its load around the run: a busy machine's figures are slow. */
export interface BenchMachine {
  readonly node: string;
  readonly cpus: number;
  readonly platform: string;
  /** The 1-minute load average before and after. */
  readonly loadBefore: number;
  readonly loadAfter: number;
}

/** The 1-minute load average now, rounded to `digits` decimals. */
export function loadAverage(digits: number): number {
  return round(loadavg()[0] ?? 0, digits);
}

/** This machine, with the load averages taken before and after the benchmark. */
export function benchMachine(loads: { loadBefore: number; loadAfter: number }): BenchMachine {
  return {
    node: process.version,
    cpus: availableParallelism(),
    platform: `${platform()}-${process.arch}`,
    loadBefore: loads.loadBefore,
    loadAfter: loads.loadAfter,
  };
}
