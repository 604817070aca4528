import { describe, expect, it } from "vitest";
import { formatMergeBenchTable, runMergeBench } from "../../src/bench/merge-bench.js";

describe("runMergeBench", () => {
  // Small sizes: the outcomes, not the timings, are under test (timings belong to the benchmark).
  let tick = 0;
  const result = runMergeBench({ agentCounts: [3], writesPerAgent: 10, now: () => tick++ });
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

  it("prints every column and the targets", () => {
    const table = formatMergeBenchTable(result);
    expect(table.split("\n")[0]).toBe(
      "workload           strategy       verdict      outcome      writes_lost  escalations  model_calls  latency_ms  converged",
    );
    expect(table).toContain("no LLM is called");
    expect(table).toContain("crdt loses 0 writes on every workload: met");
  });
});
