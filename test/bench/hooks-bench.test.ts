import { describe, expect, it } from "vitest";
import { formatHooksBenchTable, type HooksBenchResult } from "../../src/bench/hooks-bench.js";

const machine = { node: "v20", cpus: 2, platform: "linux-x64", loadBefore: 1, loadAfter: 2 };

describe("formatHooksBenchTable", () => {
  it("prints one row per transport and session count, with MET/MISSED only where a goal applies", () => {
    const result: HooksBenchResult = {
      callsPerSession: { command: 6, http: 60 },
      machine,
      figures: [
        { transport: "command", sessions: 1, p50: 343.5, p95: 742.2, samples: 6 },
        {
          transport: "http",
          sessions: 1,
          p50: 3.3,
          p95: 21.8,
          samples: 60,
          target: { stat: "p50", ms: 10, met: true },
        },
        {
          transport: "http",
          sessions: 32,
          p50: 317.9,
          p95: 657.4,
          samples: 1920,
          target: { stat: "p95", ms: 150, met: false },
        },
      ],
    };
    const lines = formatHooksBenchTable(result).split("\n");
    expect(lines[2]).toMatch(/^command +1 +343\.5 +742\.2 +6 *$/);
    expect(lines[3]).toContain("p50 <= 10 ms: MET");
    expect(lines[4]).toContain("p95 <= 150 ms: MISSED");
    expect(lines[5]).toBe("machine: linux-x64, 2 CPUs, node v20, load 1 → 2");
  });
});
