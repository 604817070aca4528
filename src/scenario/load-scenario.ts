import { constants, type Stats } from "node:fs";
import { type FileHandle, open, readdir } from "node:fs/promises";
import { basename, extname, isAbsolute, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parse as parseYaml } from "yaml";
import type { z } from "zod";
import { defaultScenarioName } from "./default-scenario.js";
import { expectedFromIssue } from "./expected-from-issue.js";
import { buildTaskTeam } from "./from-task/build-task-team.js";
import { type Scenario, scenarioSchema } from "./scenario-schema.js";
import { type ScenarioIssue, ScenarioValidationError } from "./scenario-validation-error.js";

export { ScenarioValidationError } from "./scenario-validation-error.js";

export { defaultScenarioName };

/** The shipped scenarios folder (the same relative place from src/ and from dist/). */
const shippedDirectory = fileURLToPath(new URL("../../scenarios/", import.meta.url));
const extensions = [".yaml", ".yml", ".json"];

/** True when the argument names a file rather than a shipped scenario. */
function looksLikePath(nameOrPath: string): boolean {
  return /[/\\]/.test(nameOrPath) || extensions.includes(extname(nameOrPath).toLowerCase());
}

/** One zod issue as a line of the error: the dotted field and what was expected, in plain words. */
function toIssue(issue: z.core.$ZodIssue): ScenarioIssue {
  return { field: issue.path.map(String).join("."), expected: expectedFromIssue(issue) };
}

/**
 * Validates parsed file content; `path` is only for the error message.
 * @throws ScenarioValidationError naming each invalid field and what was expected there.
 */
export function parseScenario(content: unknown, path: string): Scenario {
  // reportInput: the issues carry the offending value, so a line can say what it received.
  const result = scenarioSchema.safeParse(content, { reportInput: true });
  if (!result.success) {
    throw new ScenarioValidationError(path, result.error.issues.map(toIssue));
  }
  return result.data;
}

/** A scenario file larger than this is refused before it is read (the shipped ones are < 20 KiB). */
export const maxScenarioFileBytes = 4 * 1024 * 1024;

/** What a non-regular file is, for the error message. */
function describeKind(stats: Stats): string {
  if (stats.isDirectory()) return "a folder";
  if (stats.isFIFO()) return "a named pipe";
  if (stats.isCharacterDevice()) return "a character device";
  if (stats.isBlockDevice()) return "a block device";
  if (stats.isSocket()) return "a socket";
  return "not a regular file";
}

function readIssue(path: string, expected: string, cause?: unknown): ScenarioValidationError {
  return new ScenarioValidationError(
    path,
    [{ field: "", expected }],
    cause === undefined ? undefined : { cause },
  );
}

/**
 * The text of a scenario file, read only when it is a regular file of at most
 * {@link maxScenarioFileBytes}. Opened with `O_NONBLOCK` and checked on the open handle: a named
 * pipe would block `open()` (and the whole run, deaf to signals) until a writer came, and a
 * device such as `/dev/zero` never ends.
 */
async function readScenarioText(path: string): Promise<string> {
  const readable = "a readable scenario file (.yaml, .yml or .json)";
  let handle: FileHandle;
  try {
    handle = await open(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ELOOP") {
      throw readIssue(path, `${readable}, not a symbolic link loop`, error);
    }
    throw readIssue(path, readable, error);
  }
  try {
    const stats = await handle.stat();
    if (!stats.isFile()) {
      throw readIssue(path, `${readable}, found ${describeKind(stats)}`);
    }
    if (stats.size > maxScenarioFileBytes) {
      throw readIssue(
        path,
        `a scenario file of at most ${maxScenarioFileBytes} bytes, found ${stats.size} bytes`,
      );
    }
    // Read at most one byte past the cap: a file that grows after the stat is still bounded.
    const buffer = Buffer.alloc(Math.min(stats.size, maxScenarioFileBytes) + 1);
    let length = 0;
    while (length < buffer.length) {
      const { bytesRead } = await handle.read(buffer, length, buffer.length - length, length);
      if (bytesRead === 0) break;
      length += bytesRead;
    }
    if (length > maxScenarioFileBytes) {
      throw readIssue(path, `a scenario file of at most ${maxScenarioFileBytes} bytes`);
    }
    return buffer.toString("utf8", 0, length);
  } catch (error) {
    if (error instanceof ScenarioValidationError) throw error;
    throw readIssue(path, readable, error);
  } finally {
    await handle.close();
  }
}

async function readScenarioFile(path: string): Promise<Scenario> {
  const text = await readScenarioText(path);
  let content: unknown;
  try {
    content = extname(path).toLowerCase() === ".json" ? JSON.parse(text) : parseYaml(text);
  } catch (error) {
    const reason = error instanceof Error ? error.message.split("\n")[0] : String(error);
    throw new ScenarioValidationError(path, [{ field: "", expected: `valid syntax (${reason})` }], {
      cause: error,
    });
  }
  return parseScenario(content, path);
}

async function shippedFiles(): Promise<string[]> {
  const entries = await readdir(shippedDirectory);
  return entries
    .filter((entry) => extensions.includes(extname(entry).toLowerCase()))
    .sort()
    .map((entry) => resolve(shippedDirectory, entry));
}

/**
 * Loads a shipped scenario by name (`auth-jwt`) or a scenario file by path (relative to `cwd`).
 * @throws ScenarioValidationError for an unknown name, an unreadable file or invalid content.
 */
export async function loadScenario(
  nameOrPath: string,
  options: { cwd?: string } = {},
): Promise<Scenario> {
  if (looksLikePath(nameOrPath)) {
    const path = isAbsolute(nameOrPath) ? nameOrPath : resolve(options.cwd ?? ".", nameOrPath);
    return readScenarioFile(path);
  }
  const files = await shippedFiles();
  const file = files.find((path) => basename(path, extname(path)) === nameOrPath);
  if (file === undefined) {
    const names = files.map((path) => basename(path, extname(path))).join(", ");
    throw new ScenarioValidationError(nameOrPath, [
      { field: "", expected: `a shipped scenario (${names}) or a path to a .yaml/.json file` },
    ]);
  }
  return readScenarioFile(file);
}

/** The shipped scenarios, the default first. */
export async function listScenarios(): Promise<
  Array<{ name: string; title: string; task: string }>
> {
  const scenarios = await Promise.all((await shippedFiles()).map(readScenarioFile));
  return scenarios
    .map(({ name, title, task }) => ({ name, title, task }))
    .sort(
      (a, b) =>
        Number(b.name === defaultScenarioName) - Number(a.name === defaultScenarioName) ||
        a.name.localeCompare(b.name),
    );
}

/**
 * A scenario for a free-text task: the team `run --task`, `demo --task` and `scenario init --task`
 * put on it (`buildTaskTeam`: a Planner per sentence that decides, a Coder per piece of work, a
 * Reviewer), validated. The Planners derive their decisions from their slices; nothing about the
 * outcome is written down in advance.
 * @throws ScenarioValidationError naming `--task` when the task makes no valid scenario (empty)
 */
export function scenarioFromTask(task: string): Scenario {
  return parseScenario(buildTaskTeam(task).scenario, "--task");
}
