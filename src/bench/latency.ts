/** Percentiles, medians and timed calls, shared by the benchmarks. */

/** Latency figures in milliseconds. */
export interface LatencyFigures {
  p50: number;
  p95: number;
  samples: number;
}

/** p50/p95 of samples in ms. */
export function latency(samples: number[]): LatencyFigures {
  const sorted = [...samples].sort((left, right) => left - right);
  const at = (fraction: number) =>
    sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(fraction * sorted.length) - 1))] ?? 0;
  return { p50: round(at(0.5), 3), p95: round(at(0.95), 3), samples: sorted.length };
}

/** `value` rounded to `digits` decimals (one, as the start-up figures are shown, unless told). */
export function round(value: number, digits = 1): number {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}

/** The middle value (the mean of the two middle ones for an even count); 0 for none. */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  const upper = sorted[middle] ?? 0;
  return sorted.length % 2 === 1 ? upper : ((sorted[middle - 1] ?? 0) + upper) / 2;
}

/** The smallest and the largest value, rounded as the figures are. */
export function spread(values: readonly number[]): readonly [number, number] {
  return [round(Math.min(...values)), round(Math.max(...values))];
}

/** Wall-clock samples in ms, plus the CPU time (user + system) each call used. */
export async function timeCalls(
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
