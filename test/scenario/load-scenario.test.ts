import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { teamScenarioFromTask } from "../../src/scenario/from-task/describe-team.js";
import {
  defaultScenarioName,
  listScenarios,
  loadScenario,
  ScenarioValidationError,
  scenarioFromTask,
} from "../../src/scenario/load-scenario.js";
import { shippedScenarioNames } from "../support/fixtures/shipped-scenarios.js";
import { useTempDir } from "../support/temp-dir.js";

// biome-ignore lint/correctness/useHookAtTopLevel: useTempDir is a vitest helper, not a React hook.
const tempDir = useTempDir("shared-ctx-scenario-");

/** Writes `lines` as the YAML file `name` in a fresh folder; returns its path. */
function writeYaml(name: string, lines: string[]): string {
  const path = join(tempDir(), name);
  writeFileSync(path, lines.join("\n"));
  return path;
}

describe("listScenarios", () => {
  it("lists the twelve shipped scenarios, the default first", async () => {
    const names = (await listScenarios()).map((scenario) => scenario.name);
    expect(names[0]).toBe(defaultScenarioName);
    expect([...names].sort()).toEqual(shippedScenarioNames);
  });
});

describe("loadScenario", () => {
  it("loads a shipped scenario by name, with defaults applied", async () => {
    const scenario = await loadScenario("auth-jwt");
    expect(scenario.inventory).toContain("legacy-session-token");
    expect(scenario.agents.map((agent) => agent.role)).toEqual(["planner", "coder", "reviewer"]);
    expect(scenario.agents[2]?.startAtMs).toBe(0);
    expect(scenario.expected?.statewave.cancelledModules).toEqual([]);
  });

  it("loads a JSON file by path relative to cwd", async () => {
    const dir = tempDir();
    const shipped = await loadScenario("auth-jwt");
    writeFileSync(join(dir, "mine.json"), JSON.stringify({ ...shipped, name: "mine" }));
    const scenario = await loadScenario("mine.json", { cwd: dir });
    expect(scenario.name).toBe("mine");
  });

  it("refuses an invalid file naming the file, the field and what was expected", async () => {
    const path = writeYaml("bad.yaml", [
      "name: bad",
      "title: Bad",
      "task: Do things",
      "agents:",
      "  - { id: planner, role: planer, name: P, color: cyan }",
      "timings: { thinkMs: 10, moduleMs: 10, reviewMs: 10 }",
      "costs: { tokensPerThink: 1, tokensPerModule: 1, tokensPerReview: 1 }",
    ]);
    const error = await loadScenario(path).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ScenarioValidationError);
    const validation = error as ScenarioValidationError;
    expect(validation.path).toBe(path);
    expect(validation.issues).toContainEqual({
      field: "agents.0.role",
      expected: 'one of "planner"|"coder"|"reviewer", received "planer"',
    });
    expect(validation.message).toContain(path);
    expect(validation.message).toContain("agents.0.role");
  });

  it("words sizes and missing fields plainly, not in zod's terms", async () => {
    const path = writeYaml("sizes.yaml", [
      "name: sizes",
      "title: ''",
      "task: Do things",
      "agents:",
      "  - { id: planner, role: planner, name: P, color: cyan, startAtMs: 2.5 }",
      "timings: { thinkMs: 0, moduleMs: 10, reviewMs: 10 }",
    ]);
    const error = (await loadScenario(path).catch(
      (caught: unknown) => caught,
    )) as ScenarioValidationError;
    expect(error.issues).toEqual(
      expect.arrayContaining([
        { field: "title", expected: 'a non-empty string, received ""' },
        { field: "agents.0.startAtMs", expected: "an integer, received 2.5" },
        { field: "timings.thinkMs", expected: "a number > 0, received 0" },
        { field: "costs", expected: "an object (the field is missing)" },
      ]),
    );
    expect(error.message).toContain("  timings.thinkMs: expected a number > 0, received 0");
    expect(error.message).not.toMatch(/Too small|Invalid input/);
  });

  it("refuses a team without a Coder", async () => {
    const shipped = await loadScenario("auth-jwt");
    const dir = tempDir();
    const agents = shipped.agents.filter((agent) => agent.role !== "coder");
    writeFileSync(join(dir, "nocoder.json"), JSON.stringify({ ...shipped, agents }));
    const error = (await loadScenario("nocoder.json", { cwd: dir }).catch(
      (caught: unknown) => caught,
    )) as ScenarioValidationError;
    expect(error.issues).toEqual([
      { field: "agents", expected: 'at least one agent with role "coder"' },
    ]);
  });

  it("refuses a file that is not valid YAML", async () => {
    const dir = tempDir();
    writeFileSync(join(dir, "broken.yaml"), "name: [unclosed");
    await expect(loadScenario("broken.yaml", { cwd: dir })).rejects.toThrow(/valid syntax/);
  });

  it("refuses an unknown name, listing the shipped ones", async () => {
    await expect(loadScenario("nope")).rejects.toThrow(
      /auth-jwt, big-team, coordinator-restart, crash-restart, disagreeing-planners/,
    );
  });
});

describe("scenarioFromTask", () => {
  it("gives the Planner the decision and the Coder the work, nothing added for being deprecated", () => {
    const scenario = scenarioFromTask(
      "Build a payment service. Deprecate legacy Stripe v1 module.",
    );
    const slice = (role: string) => scenario.agents.find((agent) => agent.role === role)?.slice;
    expect(slice("planner")).toBe("Deprecate legacy Stripe v1 module.");
    expect(slice("coder")).toContain("payment-service");
    expect(slice("coder")).not.toContain("stripe");
    expect(scenario.inventory).toEqual(["legacy-stripe-v1"]);
    // The Planners derive their decisions: nothing about the outcome is written down.
    expect(scenario.agents.every((agent) => agent.decisions === undefined)).toBe(true);
  });

  it.each([
    "Build a payment service. Deprecate legacy Stripe v1 module.",
    "Replace legacy-password-reset with magic-link login; build the audit log and the admin panel. Keep user-store.",
    "Hello",
  ])("is the team run --task puts on the task (buildTaskTeam): %s", (task) => {
    const fromTask = teamScenarioFromTask(task).scenario;
    expect(scenarioFromTask(task)).toEqual(fromTask);
  });
});
