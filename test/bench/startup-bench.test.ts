import { describe, expect, it } from "vitest";
import type { StartupBenchResult } from "../../src/bench/startup-bench.js";
import { formatStartupBenchTable } from "../../src/bench/startup-bench-table.js";

const result: StartupBenchResult = {
  machine: { node: "v20.20.2", cpus: 2, platform: "linux-x64", loadBefore: 0.5, loadAfter: 0.7 },
  repeats: 5,
  baseline: { cpuMs: 60, wallMs: 70 },
  demoOutput: "terminal",
  figures: [
    {
      name: "runs",
      cpuMs: 110,
      wallMs: 120,
      ratio: 1.83,
      spreadMs: [104.2, 131.5],
      target: "≤ 2× node -e 0 CPU",
      met: true,
    },
    {
      name: "demo first frame",
      wallMs: 320,
      ratio: 4.57,
      spreadMs: [250, 410.4],
      target: "≤ 300 ms",
      met: false,
    },
    {
      name: "mcp initialize",
      wallMs: Number.NaN,
      ratio: Number.NaN,
      spreadMs: [Number.NaN, Number.NaN],
      target: "≤ 500 ms",
      met: false,
      error: "exit 1: no store",
    },
  ],
};

describe("formatStartupBenchTable", () => {
  const lines = formatStartupBenchTable(result).split("\n");
  const line = (name: string) => lines.find((text) => text.trimStart().startsWith(name)) ?? "";

  it("heads the table with the machine, its load and the number of runs", () => {
    expect(lines[0]).toBe(
      "shared-ctx bench startup — Node v20.20.2, 2 CPUs, linux-x64, load 0.5 → 0.7 (median of 5)",
    );
    expect(line("node -e 0")).toMatch(/60 ms CPU\s+70 ms wall\s+\(the baseline\)/);
  });

  it("gives each figure its median, its range of runs and its verdict", () => {
    expect(line("runs")).toMatch(
      /110 ms CPU\s+120 ms wall\s+1\.83× CPU\s+range 104\.2–131\.5 ms\s+target ≤ 2× node -e 0 CPU: MET$/,
    );
    expect(line("demo first frame")).toMatch(
      /320 ms\s+4\.57× wall\s+range 250–410\.4 ms\s+target ≤ 300 ms: MISSED$/,
    );
  });

  it("says why a figure could not be measured, with no range", () => {
    expect(line("mcp initialize")).toMatch(/target ≤ 500 ms: MISSED \(exit 1: no store\)$/);
    expect(line("mcp initialize")).not.toContain("range");
  });

  it("says how the first frame was observed and what the range is", () => {
    expect(lines).toContain(
      "The demo's first frame is observed in a pseudo-terminal (script); CPU is user + system of the whole process.",
    );
    expect(lines.some((text) => text.startsWith("The targets judge the median"))).toBe(true);
  });
});
