import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { makeScenarioCommand } from "../../../src/cli/commands/scenario.js";
import { teamScenarioFromTask } from "../../../src/scenario/from-task/describe-team.js";
import { loadScenario } from "../../../src/scenario/load-scenario.js";
import { useTempDir } from "../../support/temp-dir.js";
import { runCommand } from "../cli-harness.js";

// biome-ignore lint/correctness/useHookAtTopLevel: useTempDir is a vitest helper, not a React hook.
const tempDir = useTempDir("shared-ctx-scenario-cli-");
const task =
  "Add rate limiting and caching to the API gateway and remove the old throttle middleware";

describe("shared-ctx scenario init", () => {
  it("prints the task's team as a commented scenario file", async () => {
    const result = await runCommand(makeScenarioCommand, ["scenario", "init", "--task", task]);
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toContain("# What the rules understood of the task:");
    expect(result.stdout).toContain("  - id: coder-3");
    expect(result.stdout).toContain(
      "#   api-gateway (existing): an existing module the task's work touches",
    );
  });

  it("--out writes a file that runs as run --task does, and never overwrites one", async () => {
    const cwd = tempDir();
    const first = await runCommand(
      makeScenarioCommand,
      ["scenario", "init", "--task", task, "--out", "mine.yaml"],
      { cwd },
    );
    expect(first.exitCode).toBe(0);
    expect(first.stdout).toContain("Wrote mine.yaml. Next: shared-ctx scenario check mine.yaml");
    expect(await loadScenario(join(cwd, "mine.yaml"))).toEqual(teamScenarioFromTask(task).scenario);
    const again = await runCommand(
      makeScenarioCommand,
      ["scenario", "init", "--task", "Build a dark mode toggle", "--out", "mine.yaml"],
      { cwd },
    );
    expect(again.exitCode).toBe(2);
    expect(again.stderr).toContain("mine.yaml already exists");
    expect(readFileSync(join(cwd, "mine.yaml"), "utf8")).toContain("throttle-middleware");
  });

  it("exits 2 for a task with no work found, with the plain message", async () => {
    const result = await runCommand(makeScenarioCommand, ["scenario", "init", "--task", "Hello"]);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain("No work found in the task: there is nothing to build");
    expect(result.stdout).toBe("");
  });
});

describe("shared-ctx scenario check", () => {
  it("validates a file and says what each mode will face", async () => {
    const cwd = tempDir();
    await runCommand(makeScenarioCommand, ["scenario", "init", "--task", task, "--out", "t.yaml"], {
      cwd,
    });
    const result = await runCommand(makeScenarioCommand, ["scenario", "check", "t.yaml"], { cwd });
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toContain(
      "t.yaml: a valid scenario (add-rate-limiting-caching: 5 agents).",
    );
    expect(result.stdout).toContain("  planner decides: deprecate throttle-middleware");
    expect(result.stdout).toContain("  coder-2 works on: caching, api-gateway");
    expect(result.stdout).toContain("What each mode will face:");
    expect(result.stdout).toContain("(atomic claim)");
  });

  it("says plainly when there is nothing to coordinate", async () => {
    const cwd = tempDir();
    await runCommand(
      makeScenarioCommand,
      ["scenario", "init", "--task", "Build a dark mode toggle", "--out", "t.yaml"],
      { cwd },
    );
    const result = await runCommand(makeScenarioCommand, ["scenario", "check", "t.yaml"], { cwd });
    expect(result.stdout).toContain(
      "Nothing here to coordinate: every mode does the same work (nothing is decided, and no two slices share a module).",
    );
  });

  it("names the file, the field and the problem of a broken one (exit 2)", async () => {
    const cwd = tempDir();
    await runCommand(makeScenarioCommand, ["scenario", "init", "--task", task, "--out", "t.yaml"], {
      cwd,
    });
    const path = join(cwd, "t.yaml");
    writeFileSync(
      path,
      readFileSync(path, "utf8")
        .replace("role: coder", "role: builder")
        .replace("modules: [caching, api-gateway]", "modules: [Caching]"),
    );
    const result = await runCommand(makeScenarioCommand, ["scenario", "check", "t.yaml"], { cwd });
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain(`invalid scenario ${path}:`);
    expect(result.stderr).toContain(
      'agents.1.role: expected one of "planner"|"coder"|"reviewer", received "builder"',
    );
    expect(result.stderr).toContain("agents.2.modules.0: expected a module name in kebab-case");
  });

  it("reads a shipped scenario by name", async () => {
    const result = await runCommand(makeScenarioCommand, ["scenario", "check", "two-coders"]);
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toContain("search-index: in the slices of Coder 1 and Coder 2");
  });
});
