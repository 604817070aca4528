import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  listScenarios,
  loadScenario,
  ScenarioValidationError,
  scenarioFromTask,
} from "../../src/scenario/load-scenario.js";
import { shippedScenarioNames } from "../support/fixtures/shipped-scenarios.js";
import { rejectionOf } from "../support/rejection.js";
import { useTempDir } from "../support/temp-dir.js";

// biome-ignore lint/correctness/useHookAtTopLevel: useTempDir is a vitest helper, not a React hook.
const tempDir = useTempDir("shared-ctx-scenario-errors-");

/** The ScenarioValidationError `work` rejects with. */
const refusal = (work: Promise<unknown>) => rejectionOf(work, ScenarioValidationError);

/** The message JSON.parse gives for `text`. */
function jsonSyntaxError(text: string): string {
  try {
    JSON.parse(text);
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error("expected invalid JSON");
}

describe("loadScenario errors", () => {
  it("refuses a file it cannot read, naming the file and keeping the cause", async () => {
    const path = join(tempDir(), "missing.yaml");
    const error = await refusal(loadScenario(path));
    expect(error.path).toBe(path);
    expect(error.issues).toEqual([
      { field: "", expected: "a readable scenario file (.yaml, .yml or .json)" },
    ]);
    expect(error.message).toBe(
      `invalid scenario ${path}:\n  (file): expected a readable scenario file (.yaml, .yml or .json)`,
    );
    expect(error.cause).toMatchObject({ code: "ENOENT" });
    expect(error.name).toBe("ScenarioValidationError");
  });

  it("reads a .json file as JSON, not YAML, whatever the case of its extension", async () => {
    const dir = tempDir();
    // Valid YAML, invalid JSON: only a JSON reading refuses it for its syntax.
    const text = "name: yaml-in-json";
    for (const file of ["plain.json", "loud.JSON"]) {
      writeFileSync(join(dir, file), text);
      const error = await refusal(loadScenario(file, { cwd: dir }));
      expect(error.path).toBe(join(dir, file));
      expect(error.issues).toEqual([
        { field: "", expected: `valid syntax (${jsonSyntaxError(text)})` },
      ]);
      expect(error.cause).toBeInstanceOf(SyntaxError);
    }
  });

  it("reads a .yml file as YAML and gives the first line of the parser's message", async () => {
    const dir = tempDir();
    writeFileSync(join(dir, "broken.yml"), "name: [unclosed");
    const error = await refusal(loadScenario("broken.yml", { cwd: dir }));
    expect(error.issues).toHaveLength(1);
    const [issue] = error.issues;
    expect(issue?.field).toBe("");
    // The parser's message runs over several lines (a code frame); only its first is kept.
    expect(issue?.expected).toMatch(/^valid syntax \([A-Z][^\n]{10,}\)$/);
    expect(error.cause).toBeInstanceOf(Error);
    expect(issue?.expected).toBe(`valid syntax (${(error.cause as Error).message.split("\n")[0]})`);
  });

  it("refuses an unknown name, listing every shipped scenario in order", async () => {
    const error = await refusal(loadScenario("nope"));
    expect(error.path).toBe("nope");
    expect(error.issues).toEqual([
      {
        field: "",
        expected: `a shipped scenario (${shippedScenarioNames.join(", ")}) or a path to a .yaml/.json file`,
      },
    ]);
  });
});

describe("listScenarios", () => {
  it("gives each scenario's name, title and task only", async () => {
    const scenarios = await listScenarios();
    expect(scenarios.map((scenario) => scenario.name).sort()).toEqual(shippedScenarioNames);
    for (const scenario of scenarios) {
      expect(Object.keys(scenario).sort()).toEqual(["name", "task", "title"]);
      expect(scenario.title).not.toBe("");
      expect(scenario.task).not.toBe("");
    }
    const auth = scenarios.find((scenario) => scenario.name === "auth-jwt");
    expect(auth).toEqual({
      name: "auth-jwt",
      title: (await loadScenario("auth-jwt")).title,
      task: (await loadScenario("auth-jwt")).task,
    });
  });
});

describe("scenarioFromTask", () => {
  it("titles a task of up to 60 characters with the task itself", () => {
    const task = `Build a payment service. ${"x".repeat(35)}`;
    expect(task).toHaveLength(60);
    expect(scenarioFromTask(task).title).toBe(task);
  });

  it("cuts a longer task's title to 57 characters and an ellipsis", () => {
    const task = `Build a payment service. ${"x".repeat(36)}`;
    expect(task).toHaveLength(61);
    const { title } = scenarioFromTask(task);
    expect(title).toBe(`${task.slice(0, 57)}…`);
    expect(title).toHaveLength(58);
  });

  it("names --task as the source of an invalid task", () => {
    let error: unknown;
    try {
      scenarioFromTask("");
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ScenarioValidationError);
    const validation = error as ScenarioValidationError;
    expect(validation.path).toBe("--task");
    expect(validation.issues).toContainEqual({
      field: "task",
      expected: 'a non-empty string, received ""',
    });
    expect(validation.message).toMatch(/^invalid scenario --task:\n {2}title: expected /);
    // One line per field.
    expect(validation.message).toContain('received ""\n  task: expected a non-empty string');
  });
});
