import type { StartupBenchResult } from "./startup-bench.js";

/** The result as a table, one line per target with MET or MISSED. */
export function formatStartupBenchTable(result: StartupBenchResult): string {
  const { machine, baseline } = result;
  const lines = [
    `shared-ctx bench startup — Node ${machine.node}, ${machine.cpus} CPUs, ${machine.platform}, load ${machine.loadBefore} → ${machine.loadAfter} (median of ${result.repeats})`,
    "",
    `  ${"node -e 0".padEnd(18)} ${`${baseline.cpuMs} ms CPU`.padEnd(16)} ${`${baseline.wallMs} ms wall`.padEnd(16)} (the baseline)`,
  ];
  for (const figure of result.figures) {
    const measured =
      figure.cpuMs !== undefined
        ? `${figure.cpuMs} ms CPU`.padEnd(16) +
          ` ${`${figure.wallMs} ms wall`.padEnd(16)} ${figure.ratio}× CPU`
        : `${`${figure.wallMs} ms`.padEnd(16)} ${"".padEnd(16)} ${figure.ratio}× wall`;
    const verdict = figure.met ? "MET" : "MISSED";
    const [fastest, slowest] = figure.spreadMs;
    const range = figure.error ? "" : `range ${fastest}–${slowest} ms`;
    lines.push(
      `  ${figure.name.padEnd(18)} ${measured.padEnd(48)} ${range.padEnd(24)} target ${figure.target}: ${verdict}${figure.error ? ` (${figure.error})` : ""}`,
    );
  }
  if (result.imports && result.imports.length > 0) {
    lines.push("", "  the library (time of the import itself, in a fresh process; no target):");
    for (const figure of result.imports) {
      const [fastest, slowest] = figure.spreadMs;
      lines.push(
        figure.error
          ? `  ${figure.name.padEnd(30)} not measured (${figure.error})`
          : `  ${figure.name.padEnd(30)} ${`${figure.importMs} ms`.padEnd(12)} ${`${figure.wallMs} ms process wall`.padEnd(24)} range ${fastest}–${slowest} ms`,
      );
    }
  }
  lines.push(
    "",
    `The demo's first frame is observed ${result.demoOutput === "terminal" ? "in a pseudo-terminal (script)" : "through a pipe (no `script` here)"}; CPU is user + system of the whole process.`,
    "The targets judge the median; the range is the fastest and the slowest run of what they judge (CPU for CPU targets).",
  );
  return `${lines.join("\n")}\n`;
}
