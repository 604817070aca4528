import { describe, expect, it } from "vitest";
import { runWholeCli } from "../cli-harness.js";

describe("shared-ctx bench store --quick (a smoke run: figures are printed, never judged here)", () => {
  it("measures every part, serve included, and prints each figure with its target verdict", async () => {
    const { exitCode, stdout, stderr } = await runWholeCli([
      "bench",
      "store",
      "--quick",
      "--serve-seconds",
      "1",
    ]);

    expect(exitCode, stderr).toBe(0);
    // Progress on stderr, one line per part, so stdout is the table alone.
    for (const part of ["ingest", "getContext", "getTimeline", "serve"]) {
      expect(stderr).toMatch(new RegExp(`^… ${part}`, "m"));
    }
    expect(stdout).toMatch(/^shared-ctx bench store — Node v\d+/);
    const rows = [
      /^createEpisode, one at a time\s+[\d,]+ \/s$/m,
      /^ {2}createEpisode \/ raw\s+\d+ %\s+target >= 50 %: (MET|MISSED)$/m,
      /^createEpisodesBatch \(100 per call\)\s+[\d,]+ \/s$/m,
      /^getContext, 1,000 episodes \([\d,]+ memories\)\s+p50 [\d.]+ ms {2}p95 [\d.]+ ms/m,
      /^getContext, 10,000 episodes \([\d,]+ memories\).*target p95 <= 10 ms: (MET|MISSED)$/m,
      /^getTimeline, 10,000 episodes, first 100\s+p50 [\d.]+ ms/m,
      /^getTimeline, all 10,000\s+p50 [\d.]+ ms/m,
      /8 clients in another process\s+[\d,]+ \/s.*target >= 3,000 \/s: (MET|MISSED)$/m,
      /autocannon in process, 16 conn\.\s+[\d,]+ \/s/m,
      /^\(one run, [\d.]+ s; load at the end [\d.]+\)$/m,
    ];
    for (const row of rows) expect(stdout).toMatch(row);
    // --quick leaves out 100k; the serve figures were measured, not skipped.
    expect(stdout).not.toContain("100,000 episodes");
    expect(stdout).not.toMatch(/serve\s+skipped/);
  }, 180_000);
});
