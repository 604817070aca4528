import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import { waitForExit } from "../support/run-child.js";
import { useTempDir } from "../support/temp-dir.js";

const repoRoot = fileURLToPath(new URL("../..", import.meta.url));
const bin = join(repoRoot, "bin", "shared-ctx.js");

/** Runs the BUILT bin with stdout a pipe (no TTY), as CI would. */
async function shared(args: readonly string[], env: Record<string, string>) {
  const child = spawn(process.execPath, [bin, ...args], {
    cwd: repoRoot,
    env: { ...process.env, NO_COLOR: "1", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  return waitForExit(child);
}

describe("the built bin without a TTY", () => {
  const tempDir = useTempDir("shared-ctx-bin-");

  beforeAll(() => {
    if (!existsSync(join(repoRoot, "dist", "cli", "main.js"))) {
      throw new Error("dist/ is missing: run `npm run build` before these tests");
    }
  });

  it("demo, runs, timeline and run print plain output and exit 0; a bad run id exits 2", async () => {
    const env = { SHARED_CTX_DB: join(tempDir(), "store.db") };

    const demo = await shared(["demo", "--speed", "50", "--seed", "7"], env);
    expect(demo.stderr).toBe("");
    expect(demo.code).toBe(0);
    expect(demo.stdout).not.toContain("\u001B[");
    const naiveAt = demo.stdout.indexOf("== Naive (message passing) · nv-");
    const statewaveAt = demo.stdout.indexOf("== Shared context (Statewave) · sw-");
    const comparisonAt = demo.stdout.indexOf("== Comparison ==");
    expect(naiveAt).toBeGreaterThanOrEqual(0);
    expect(statewaveAt).toBeGreaterThan(naiveAt);
    expect(comparisonAt).toBeGreaterThan(statewaveAt);
    expect(demo.stdout).toContain("[Planner] DEPRECATING → legacy-session-token");
    expect(demo.stdout).toContain(
      "COLLISION DETECTED — both agents already finished; the wasted compute cannot be recovered",
    );
    expect(demo.stdout).toMatch(/CONFLICT AVOIDED — the Coder/);
    expect(demo.stdout).toMatch(/Modules built in vain\s+1 \(legacy-session-token\)\s+0/);
    const runId = /shared-ctx timeline (sw-[0-9a-z]{8})/.exec(demo.stdout)?.[1];
    expect(runId).toBeDefined();

    const runs = await shared(["runs"], env);
    expect(runs.code).toBe(0);
    expect(runs.stdout).toMatch(
      new RegExp(`${runId}\\s+statewave\\s+auth-jwt\\s+\\S+ \\S+\\s+\\d+ conflicts? avoided`),
    );
    expect(runs.stdout).toMatch(/nv-[0-9a-z]{8}\s+naive\s+auth-jwt\s+\S+ \S+\s+collision/);

    const timeline = await shared(["timeline", runId ?? ""], env);
    expect(timeline.code).toBe(0);
    expect(timeline.stdout).toMatch(/Time \(UTC\)\s+Relative\s+Agent\s+Event type\s+Content/);
    expect(timeline.stdout).toMatch(/Coder\s+module-skip\s+Skipping → legacy-session-token/);
    expect(timeline.stdout).toMatch(/Final memory state: [1-9]\d* active/);
    expect(timeline.stdout).toContain("Who read what");

    const bad = await shared(["timeline", "sw-zzzzzzzz"], env);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('no run "sw-zzzzzzzz"');
    expect(bad.stderr).toContain(runId);

    const run = await shared(["run", "--mode", "naive", "--speed", "50", "--seed", "7"], env);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/== Naive \(message passing\) · nv-[0-9a-z]{8}/);
    expect(run.stdout).toContain("[Planner] DEPRECATING → legacy-session-token");
  });
});
