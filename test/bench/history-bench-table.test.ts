import { describe, expect, it } from "vitest";
import {
  formatHistoryBenchTable,
  type HistoryBenchResult,
  type HistorySizeFigures,
  historyGoals,
} from "../../src/bench/history-bench-table.js";

function figures(size: number, overrides: Partial<HistorySizeFigures> = {}): HistorySizeFigures {
  return {
    size,
    seedSeconds: 0.1,
    checkMs: 400,
    checkRefused: true,
    beforeActingMs: 4,
    beforeActingListsRetirement: true,
    retractMs: 2,
    historyMs: 1,
    timelinePageMs: 1,
    watchOnceMs: 600,
    watchRssMb: 70,
    timelineMs: 500,
    timelineRssMb: 60,
    ...overrides,
  };
}

describe("historyGoals", () => {
  it("holds each flat figure at the largest size to 2x the smallest, whatever order the sizes came in", () => {
    const goals = historyGoals({
      backend: "embedded",
      sizes: [figures(50_000, { retractMs: 4, historyMs: 2.1 }), figures(10)],
    });
    const byGoal = new Map(goals.map((goal) => [goal.goal, goal]));
    expect(byGoal.get("retract by id at 50,000 within 2x of 10")).toMatchObject({
      met: true,
      detail: "2.0 ms -> 4.0 ms (2.00x)",
    });
    expect(byGoal.get("history by id at 50,000 within 2x of 10")).toMatchObject({
      met: false,
      detail: "1.0 ms -> 2.1 ms (2.10x)",
    });
  });

  it("misses the RSS goal at 100 MB and names the sizes where the retirement was not enforced", () => {
    const goals = historyGoals({
      backend: "serve",
      sizes: [
        figures(10),
        figures(1000, { checkRefused: false }),
        figures(50_000, {
          timelineRssMb: 100,
          watchRssMb: 99.9,
          beforeActingListsRetirement: false,
        }),
      ],
    });
    const verdict = (goal: string) => goals.find((entry) => entry.goal === goal);
    expect(verdict("timeline peak RSS at 50,000 under 100 MB")?.met).toBe(false);
    expect(verdict("watch peak RSS at 50,000 under 100 MB")?.met).toBe(true);
    expect(verdict("check refuses the retired module at every size")).toMatchObject({
      met: false,
      detail: "allowed at 1,000",
    });
    expect(verdict("beforeActing lists the retirement at every size")).toMatchObject({
      met: false,
      detail: "missing at 50,000",
    });
  });

  it("has no growth goals for one size, and none for a skipped backend", () => {
    expect(
      historyGoals({ backend: "embedded", sizes: [figures(10)] }).map((goal) => goal.goal),
    ).toEqual([
      "timeline peak RSS at 10 under 100 MB",
      "watch peak RSS at 10 under 100 MB",
      "check refuses the retired module at every size",
      "beforeActing lists the retirement at every size",
    ]);
    expect(historyGoals({ backend: "postgres", skipped: "no --database-url" })).toEqual([]);
  });
});

describe("formatHistoryBenchTable", () => {
  it("prints a row per size and each goal MET or MISSED, and says why a backend was skipped", () => {
    const result: HistoryBenchResult = {
      machine: { node: "v20.0.0", cpus: 2, platform: "linux-x64", loadBefore: 1, loadAfter: 2 },
      backends: [
        { backend: "embedded", sizes: [figures(10), figures(50_000, { retractMs: 13_210 })] },
        { backend: "postgres", skipped: "no --database-url" },
      ],
      totalSeconds: 12,
    };
    const table = formatHistoryBenchTable(result);
    expect(table).toContain("bench history: v20.0.0, 2 CPUs, linux-x64, load 1 -> 2, 12 s");
    expect(table).toMatch(/^\s+50,000\s+0\.1\s+400\.0 ms\s+yes\s+4\.0 ms\s+yes\s+13\.21 s/m);
    expect(table).toContain("MISSED retract by id at 50,000 within 2x of 10: 2.0 ms -> 13.21 s");
    expect(table).toContain("MET    check at 50,000 within 2x of 10");
    expect(table).toContain("postgres:\n  skipped: no --database-url");
  });
});
