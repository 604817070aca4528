import { writeFile } from "node:fs/promises";
import { isAbsolute, resolve } from "node:path";
import { Command } from "commander";
import type { CliDeps } from "../cli-deps.js";
import { FatalError, UsageError } from "../fatal-error.js";

/** The message a task with no work found is refused with (exit 2), here and in `run --task`. */
export function noWorkMessage(task: string): string {
  return (
    `No work found in the task: there is nothing to build ("${task}"). ` +
    "The offline rules read deprecate/retire/remove/drop/sunset/stop using/get rid of X, keep X, " +
    "replace A with B, migrate X from A to B, split X into A and B, merge A into B, " +
    "build/add/implement X (to Y), fix/update/improve X and make X faster; " +
    "set LLM_MODEL for a real model"
  );
}

interface InitOptions {
  task: string;
  out?: string;
}

/** `shared-ctx scenario init|check`: a scenario file from a task, and a check of one. */
export function makeScenarioCommand(deps: CliDeps): Command {
  const command = new Command("scenario").description(
    "write a scenario file from your own task, or check one",
  );
  command
    .command("init")
    .description("write the team run --task would put on a task as an editable, commented scenario")
    .requiredOption("--task <text>", "the task, in plain words")
    .option("--out <file.yaml>", "write it to this file (default: print it)")
    .addHelpText("after", initHelpText)
    .action((options: InitOptions) => initScenario(options, deps));
  command
    .command("check")
    .description("validate a scenario file and say what each coordination mode will face on it")
    .argument("<file>", "a .yaml/.yml/.json scenario file (or a shipped scenario's name)")
    .action((file: string) => checkScenario(file, deps));
  return command;
}

/** The help after `scenario init`'s options: examples of the whole path to a demo. */
const initHelpText = [
  "",
  "Examples:",
  '  $ shared-ctx scenario init --task "Replace the legacy password-reset module with magic links" --out reset.yaml',
  "  $ shared-ctx scenario check reset.yaml",
  "  $ shared-ctx demo --scenario reset.yaml",
].join("\n");

/** `scenario init`: the team a task gets, as YAML printed or written to a new file. */
async function initScenario(options: InitOptions, deps: CliDeps): Promise<void> {
  const [{ buildTaskTeam }, { teamToYaml }] = await Promise.all([
    import("../../scenario/from-task/build-task-team.js"),
    import("../../scenario/from-task/scenario-yaml.js"),
  ]);
  if (options.task.trim() === "") throw new UsageError("--task needs the task's text");
  const team = buildTaskTeam(options.task);
  if (!team.hasWork) throw new UsageError(noWorkMessage(options.task));
  const yaml = teamToYaml(team);
  if (options.out === undefined) {
    deps.stdout.write(yaml);
    return;
  }
  await writeNewFile(options.out, yaml, deps);
  deps.stdout.write(
    `Wrote ${options.out}. Next: shared-ctx scenario check ${options.out}, then shared-ctx demo --scenario ${options.out}\n`,
  );
}

/**
 * Writes `text` to `out` (relative to the cwd) only if no file is there yet.
 * @throws UsageError when it exists, FatalError when it cannot be written.
 */
async function writeNewFile(out: string, text: string, deps: CliDeps): Promise<void> {
  const path = isAbsolute(out) ? out : resolve(deps.cwd, out);
  try {
    await writeFile(path, text, { flag: "wx" });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "EEXIST") {
      throw new UsageError(`${out} already exists: choose another --out, or remove it`, {
        cause: error,
      });
    }
    throw new FatalError(`cannot write ${out}: ${(error as Error).message}`, {
      cause: error,
    });
  }
}

/** `scenario check`: the file validated, and what each coordination mode will face on it. */
async function checkScenario(file: string, deps: CliDeps): Promise<void> {
  const [{ loadScenario }, { whatModesFace }, { describeFaces }] = await Promise.all([
    import("../../scenario/load-scenario.js"),
    import("../../scenario/from-task/what-modes-face.js"),
    import("../../scenario/from-task/describe-team.js"),
  ]);
  const scenario = await loadScenario(file, { cwd: deps.cwd });
  const faces = whatModesFace(scenario);
  const lines = [
    `${file}: a valid scenario (${scenario.name}: ${scenario.agents.length} agents).`,
    ...faces.decisions.map(
      (planner) =>
        `  ${planner.agentId} decides: ${
          planner.decisions.map((d) => `${d.value} ${d.target}`).join(", ") || "nothing"
        }`,
    ),
    ...faces.modules.map(
      (coder) => `  ${coder.agentId} works on: ${coder.modules.join(", ") || "nothing"}`,
    ),
    ...describeFaces(faces),
    "(As the offline rules read it; with LLM_MODEL set, the model decides and plans.)",
  ];
  deps.stdout.write(`${lines.join("\n")}\n`);
}
