import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { useTempDir } from "../support/temp-dir.js";

const child = join(import.meta.dirname, "support", "timeline-rss-child.ts");

function run(...args: string[]): Record<string, unknown> {
  const output = execFileSync(process.execPath, ["--import", "tsx", child, ...args], {
    encoding: "utf8",
    maxBuffer: 1024 * 1024,
  });
  return JSON.parse(output) as Record<string, unknown>;
}

describe("GET /v1/timeline on a subject of large episodes", () => {
  const tempDir = useTempDir("shared-ctx-timeline-rss-");

  // 500 × 1 MiB: a timeline of 10,000 would be ~500 MiB of JSON built whole (it was a 500 and
  // 1.84 GB of RSS). The answer stops at the 16 MiB cap and says where to go on; measured in a
  // fresh child process, its peak RSS stays far below the subject's size.
  it("answers 500 × 1 MiB episodes with a capped page, X-Next-Offset, and bounded RSS", () => {
    const path = join(tempDir(), "big.db");
    expect(run("write", path, "500")).toEqual({ written: 500 });
    const read = run("read", path);
    expect(read).toMatchObject({ status: 200, episodes: 15, nextOffset: "15" });
    expect(read.bytes as number).toBeLessThanOrEqual(16 * 1024 * 1024);
    // Generous: the figure measured is in docs/server.md; 500 MiB would be the subject itself.
    expect(read.peakRssMiB as number).toBeLessThan(400);
    console.info(`timeline of 500 × 1 MiB episodes: ${JSON.stringify(read)}`);
  }, 120_000);
});
