import { describe, expect, it } from "vitest";
import type { CliDeps } from "../../../src/cli/cli-deps.js";
import { createProgram } from "../../../src/cli/program.js";

function run(args: string[]) {
  let stdout = "";
  let stderr = "";
  const deps: CliDeps = {
    stdout: { write: (chunk: string) => (stdout += chunk) },
    stderr: { write: (chunk: string) => (stderr += chunk) },
    env: {},
    cwd: process.cwd(),
    signal: new AbortController().signal,
  };
  const program = createProgram(deps).exitOverride();
  return { done: program.parseAsync(args, { from: "user" }), output: () => ({ stdout, stderr }) };
}

describe("shared-ctx bench merge", () => {
  it("--json prints the rows keyed by the column names", async () => {
    const command = run(["bench", "merge", "--json", "--agents", "2", "--writes", "5"]);
    await command.done;
    const rows = JSON.parse(command.output().stdout) as Array<Record<string, unknown>>;
    expect(rows).toHaveLength(12);
    expect(Object.keys(rows[0] ?? {})).toEqual([
      "workload",
      "strategy",
      "verdict",
      "outcome",
      "writes_lost",
      "escalations",
      "model_calls",
      "latency_ms",
      "converged",
    ]);
  });

  it("--json writes progress and the targets to stderr, keeping stdout JSON", async () => {
    const command = run(["bench", "merge", "--json", "--agents", "2", "--writes", "5"]);
    await command.done;
    const { stderr } = command.output();
    expect(stderr).toContain("… [4/4] many_agents(2x5): 2 agents, 10 writes: crdt");
    expect(stderr).toMatch(/load [\d.]+ at start, [\d.]+ at end; MET crdt loses 0 writes/);
  });

  it("--quick writes 20 per agent (agents 2,8,64 unless --agents says otherwise)", async () => {
    const command = run(["bench", "merge", "--quick", "--json", "--agents", "2,3"]);
    await command.done;
    const rows = JSON.parse(command.output().stdout) as Array<{ workload: string }>;
    expect([...new Set(rows.map((row) => row.workload))].slice(3)).toEqual([
      "many_agents(2x20)",
      "many_agents(3x20)",
    ]);
  });

  it("rejects a bad agent list with a usage error", async () => {
    const command = run(["bench", "merge", "--agents", "two"]);
    await expect(command.done).rejects.toMatchObject({ exitCode: 2 });
  });
});
