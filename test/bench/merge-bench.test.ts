import { describe, expect, it } from "vitest";
import {
  formatMergeBenchTable,
  judgeTargets,
  type MergeBenchRow,
  runMergeBench,
} from "../../src/bench/merge-bench.js";

describe("runMergeBench", () => {
  // Small sizes: the outcomes, not the timings, are under test (timings belong to the benchmark).
  let tick = 0;
  const progress: string[] = [];
  const result = runMergeBench({
    agentCounts: [3],
    writesPerAgent: 10,
    now: () => tick++,
    onProgress: (message) => progress.push(message),
    loadAverage: () => 1.5,
  });
  const row = (workload: string, strategy: string) =>
    result.rows.find((item) => item.workload === workload && item.strategy === strategy);

  it("crdt loses no write on any workload and converges", () => {
    for (const item of result.rows.filter((candidate) => candidate.strategy === "crdt")) {
      expect(item).toMatchObject({
        writes_lost: 0,
        converged: true,
        verdict: "ok",
        model_calls: 0,
      });
    }
  });

  it.each([
    ["clean_merge", "auto_merged", 0],
    ["semantic_conflict", "escalated", 1],
    ["type_mismatch", "escalated", 1],
    ["many_agents(3x10)", "auto_merged", 0],
  ])("crdt on %s: %s with %i escalation(s)", (workload, outcome, escalations) => {
    expect(row(workload, "crdt")).toMatchObject({ outcome, escalations });
  });

  it("lww silently loses writes wherever agents write the same key", () => {
    for (const workload of [
      "clean_merge",
      "semantic_conflict",
      "type_mismatch",
      "many_agents(3x10)",
    ]) {
      expect(row(workload, "lww")).toMatchObject({ outcome: "corrupted", verdict: "silent loss" });
      expect(row(workload, "lww")?.writes_lost).toBeGreaterThan(0);
    }
  });

  it("transactional settles conflicts with counted model calls", () => {
    expect(row("semantic_conflict", "transactional")).toMatchObject({
      outcome: "resolved",
      model_calls: 1,
      writes_lost: 0,
    });
  });

  it("prints the machine's load, every column and each target with MET/MISSED", () => {
    const table = formatMergeBenchTable(result);
    const lines = table.split("\n");
    expect(lines[0]).toMatch(
      /^shared-ctx bench merge — Node v\d+.*load 1\.5 at start, 1\.5 at end$/,
    );
    expect(lines[2]).toBe(
      "workload           strategy       verdict      outcome      writes_lost  escalations  model_calls  latency_ms  converged",
    );
    expect(table).toContain("no LLM is called");
    expect(table).toContain("MET     crdt loses 0 writes on every workload (0 lost)");
    // The 64x100 targets are only judged on a run that has that workload.
    expect(table).toContain("not run many_agents(64x100) crdt converges in <= 250 ms");
  });

  it("reports progress once per strategy of each workload, numbered", () => {
    expect(progress).toHaveLength(4 * 3);
    expect(progress[0]).toBe("[1/4] clean_merge: 2 agents, 8 writes: lww");
    expect(progress.at(-1)).toBe("[4/4] many_agents(3x10): 3 agents, 30 writes: crdt");
  });
});

describe("judgeTargets", () => {
  const row = (overrides: Partial<MergeBenchRow>): MergeBenchRow => ({
    workload: "many_agents(64x100)",
    strategy: "crdt",
    verdict: "ok",
    outcome: "auto_merged",
    writes_lost: 0,
    escalations: 0,
    model_calls: 0,
    latency_ms: 0,
    converged: true,
    ...overrides,
  });
  const costs = (crdt: number) => [
    {
      workload: "many_agents(64x100)",
      writeCosts: [
        { strategy: "lww" as const, microsecondsPerWrite: 40, cpuMicrosecondsPerWrite: 20 },
        {
          strategy: "transactional" as const,
          microsecondsPerWrite: 90,
          cpuMicrosecondsPerWrite: 45,
        },
        {
          strategy: "crdt" as const,
          microsecondsPerWrite: crdt,
          cpuMicrosecondsPerWrite: crdt / 4,
        },
      ],
    },
  ];
  const merges = (slowestMs: number) => [
    {
      workload: "many_agents(64x100)",
      replicas: 64,
      medianMs: slowestMs / 2,
      slowestMs,
      medianCpuMs: slowestMs / 4,
      slowestCpuMs: slowestMs / 2,
    },
  ];

  it("judges the 64x100 targets when that workload ran", () => {
    expect(judgeTargets([row({})], costs(320), merges(180))).toEqual([
      { name: "crdt loses 0 writes on every workload", status: "MET", measured: "0 lost" },
      { name: "crdt replicas converge to identical state on every workload", status: "MET" },
      {
        name: "many_agents(64x100) crdt converges in <= 250 ms (slowest replica)",
        status: "MET",
        measured: "180.0 ms; CPU 90.0 ms",
      },
      {
        name: "many_agents(64x100) crdt cost per write <= 10x lww",
        status: "MET",
        measured: "8.0x; CPU 4.0x",
      },
    ]);
  });

  it("says MISSED with the figure, and not run without the workload", () => {
    const missed = judgeTargets(
      [row({ writes_lost: 2, converged: false })],
      costs(600),
      merges(300),
    );
    expect(missed.map((target) => `${target.status} ${target.measured ?? ""}`)).toEqual([
      "MISSED 2 lost",
      "MISSED ",
      "MISSED 300.0 ms; CPU 150.0 ms",
      "MISSED 15.0x; CPU 7.5x",
    ]);
    expect(judgeTargets([row({})], [], []).map((target) => target.status)).toEqual([
      "MET",
      "MET",
      "not run",
      "not run",
    ]);
  });
});
