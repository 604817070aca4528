import { describe, expect, it } from "vitest";
import { makeEpisodes } from "../../src/bench/bench-episodes.js";
import { latency } from "../../src/bench/latency.js";
import type { StoreBenchResult } from "../../src/bench/store-bench.js";
import { formatStoreBenchTable } from "../../src/bench/store-bench-table.js";

describe("latency", () => {
  it("takes nearest-rank percentiles", () => {
    const samples = Array.from({ length: 100 }, (_, index) => index + 1);
    expect(latency(samples)).toEqual({ p50: 50, p95: 95, samples: 100 });
    expect(latency([])).toEqual({ p50: 0, p95: 0, samples: 0 });
  });
});

describe("makeEpisodes", () => {
  it("is the same data set for the same seed", () => {
    const seeded = (seed: number) => () => {
      seed = (seed * 16807) % 2147483647;
      return seed / 2147483647;
    };
    expect(makeEpisodes("s", 50, seeded(7))).toEqual(makeEpisodes("s", 50, seeded(7)));
    const types = new Set(makeEpisodes("s", 500, seeded(7)).map((episode) => episode.type));
    expect(types).toEqual(
      new Set([
        "architectural_decision",
        "review_finding",
        "implementation_note",
        "message",
        "state_update",
      ]),
    );
  });
});

describe("formatStoreBenchTable", () => {
  const result: StoreBenchResult = {
    machine: { node: "v20.0.0", sqlite: "3.50.0", cpus: 2, platform: "linux", loadAverage: 0.5 },
    ingest: {
      singlePerSecond: 20000,
      batchPerSecond: 90000,
      rawPerSecond: 30000,
      rawBatchPerSecond: 120000,
      singleToRaw: 0.67,
      batchToRawBatch: 0.75,
    },
    context: [
      {
        episodes: 10_000,
        memories: 9000,
        compileMs: 500,
        cpuP95: 3,
        p50: 2,
        p95: 3.5,
        samples: 300,
      },
      {
        episodes: 100_000,
        memories: 90000,
        compileMs: 5000,
        cpuP95: 5,
        p50: 4,
        p95: 60,
        samples: 200,
      },
    ],
    timeline: {
      episodes: 10_000,
      page100: { p50: 0.5, p95: 0.8, samples: 200 },
      full: { p50: 90, p95: 95, samples: 10 },
    },
    serve: {
      inProcess: { connections: 16, createsPerSecond: 5000, non2xx: 0, errors: 0 },
      client: {
        clients: 8,
        createsPerSecond: 4000,
        createP50Ms: 1.5,
        createP95Ms: 4,
        failures: 0,
        contextMemories: 320,
        contextP50Ms: 3,
        contextP95Ms: 6,
        contextP10Ms: 1.9,
        timelineP50Ms: 1.2,
        timelineP95Ms: 2,
        timelineP10Ms: 1,
      },
    },
    totalSeconds: 100,
    loadAverageAtEnd: 0.7,
  };

  it("prints every figure with its target verdict", () => {
    const table = formatStoreBenchTable(result);
    expect(table).toContain("createEpisode / raw");
    expect(table).toMatch(/67 %\s+target >= 50 %: MET/);
    expect(table).toMatch(
      /10,000 episodes.*p95 3.50 ms\s+\(CPU p95 3.00 ms\)\s+target p95 <= 10 ms: MET/,
    );
    expect(table).toMatch(/100,000 episodes.*p95 60.00 ms.*target p95 <= 50 ms: MISSED/);
    expect(table).toMatch(/8 clients in another process\s+4,000 \/s.*target >= 3,000 \/s: MET/);
    expect(table).toMatch(/320 memories\s+p50 3.00 ms.*target p50 <= 2 ms: MISSED/);
    expect(table).toMatch(/timeline.*p50 1.20 ms.*target p50 <= 5 ms: MET/);
    expect(table).toMatch(/autocannon in process, 16 conn.\s+5,000 \/s/);
    expect(table).toContain("load 0.5");
    expect(table).toContain("load at the end 0.7");
  });

  it("says when serve was skipped", () => {
    expect(formatStoreBenchTable({ ...result, serve: { skipped: "--skip-serve" } })).toMatch(
      /serve\s+skipped\s+--skip-serve/,
    );
  });
});
