import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { makeRunsCommand } from "../../src/cli/commands/runs.js";
import { useTempDir } from "../support/temp-dir.js";
import { runCommand } from "./cli-harness.js";
import { seededEnv } from "./seed-runs.js";

const seeded = seededEnv;

describe("shared-ctx runs", () => {
  const tempDir = useTempDir("shared-ctx-runs-");

  it("lists runs newest first with mode, scenario, when and outcome", async () => {
    const result = await runCommand(makeRunsCommand, ["runs"], { env: await seeded(tempDir) });
    expect(result.exitCode).toBe(0);
    const lines = result.stdout.trim().split("\n");
    expect(lines[0]).toMatch(/^Run id\s+Mode\s+Scenario\s+When \(UTC\)\s+Outcome\s+Task$/);
    expect(lines[1]).toMatch(
      /^sw-4e5f6a7b\s+statewave\s+auth-jwt\s+2025-06-01 12:00:\d\dZ\s+1 conflict avoided\s+\S/,
    );
    expect(lines[2]).toMatch(
      /^nv-0a1b2c3d\s+naive\s+auth-jwt\s+2025-06-01 12:00:\d\dZ\s+collision\s+\S/,
    );
    // Not a terminal: no colour.
    expect(result.stdout).not.toContain("\u001B[");
  });

  it("prints one JSON document with each run's task and outcome (--json)", async () => {
    const result = await runCommand(makeRunsCommand, ["runs", "--json"], {
      env: await seeded(tempDir),
    });
    const document = JSON.parse(result.stdout);
    expect(document.runs[0]).toMatchObject({ runId: "sw-4e5f6a7b", outcome: "1 conflict avoided" });
    expect(typeof document.runs[0].task).toBe("string");
  });

  it("says there are no runs when the store does not exist yet", async () => {
    const db = join(tempDir(), "store.db");
    const result = await runCommand(makeRunsCommand, ["runs"], { env: { SHARED_CTX_DB: db } });
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toContain("No runs yet");
  });
});
