import { Command, Option } from "commander";
import type { Brain } from "../../agents/brain.js";
import { runModes } from "../../coordination/run-events.js";
import { defaultScenarioName, defaultScenarioReasons } from "../../scenario/default-scenario.js";
import type { RunMode, ScenarioEvent } from "../../scenario/scenario-events.js";
import type { StartRunOptions } from "../../scenario/scenario-runner.js";
import type { Scenario } from "../../scenario/scenario-schema.js";
import type { CliDeps } from "../cli-deps.js";
import {
  addStoreOptions,
  brainFromEnv,
  drawsLive,
  isTerminal,
  parsePositiveNumber,
  parseSeed,
  type StoreFlags,
  withSelectedStore,
} from "../command-helpers.js";
import { UsageError } from "../fatal-error.js";
import { describeModes } from "../help-text.js";
import { checkModelServer } from "../model-server-check.js";

/** The CLI's default speed: the shipped scenarios take 15–30 s of scenario time, so 2–3 s. */
export const defaultRunSpeed = 10;

interface RunCommandOptions extends StoreFlags {
  mode: RunMode;
  scenario?: string;
  task?: string;
  json?: boolean;
  speed: number;
  seed?: number;
  color: boolean;
}

/**
 * `run --task`: the team the task gets, shown before the run (where each piece of each slice came
 * from, what each mode will face), and what `--json` adds (`understood`, `team`). A task the rules
 * find no work in is refused (exit 2) with the offline brain; a model gets the whole task instead.
 */
async function prepareTask(
  deps: CliDeps,
  task: string,
  brain: Brain,
  options: RunCommandOptions,
): Promise<{ scenario: Scenario; json: Record<string, unknown>; closing?: string } | undefined> {
  const [
    { teamScenarioFromTask, describeTeam, describeFaces },
    { whatModesFace },
    { noWorkMessage },
  ] = await Promise.all([
    import("../../scenario/from-task/describe-team.js"),
    import("../../scenario/from-task/what-modes-face.js"),
    import("./scenario.js"),
  ]);
  const { team, scenario } = teamScenarioFromTask(task);
  const json = {
    understood: team.understood,
    team: team.members.map(({ id, role, slice, pieces, clauses }) => ({
      id,
      role,
      slice,
      ...(role === "coder" ? { pieces } : {}),
      ...(role === "planner" ? { clauses } : {}),
    })),
  };
  if (!team.hasWork) {
    // A model may read what the rules cannot: it gets the whole task, as one Planner and one Coder.
    if (brain.reproducible !== true) return undefined;
    if (options.json) {
      deps.stdout.write(`${JSON.stringify({ task, understood: team.understood }, null, 2)}\n`);
    }
    throw new UsageError(noWorkMessage(task));
  }
  const faces = whatModesFace(scenario);
  if (!options.json) {
    deps.stdout.write(`${[...describeTeam(team), ...describeFaces(faces), ""].join("\n")}\n`);
  }
  return {
    scenario,
    json: { ...json, nothingToCoordinate: faces.nothing },
    ...(faces.nothing
      ? { closing: `Nothing here to coordinate: every mode does the same work (${faces.why}).` }
      : {}),
  };
}

/** `shared-ctx run`: one pipeline on one scenario (or a free-text task), with a summary. */
export function makeRunCommand(deps: CliDeps): Command {
  const command = new Command("run")
    .description(
      "run one coordination mode (isolated messages, broadcast messages, a group chat, or the shared context) and summarise it",
    )
    .addOption(
      new Option("--mode <mode>", describeModes()).choices([...runModes]).default("statewave"),
    )
    .option(
      "--scenario <name|path>",
      `a shipped scenario or a .yaml/.json file (default: ${defaultScenarioReasons.run}; \`demo\` opens on ${defaultScenarioReasons.demo})`,
    )
    .option(
      "--task <text>",
      "your own task instead of a scenario: a team is put on it (scenario init --task writes it as a file)",
    )
    .option("--json", "print one JSON document (summary and events) instead of lines")
    .option(
      "--speed <n>",
      "playback speed of the live view (1 = scenario timings in real time); never changes the outcome",
      parsePositiveNumber,
      defaultRunSpeed,
    )
    .option("--seed <n>", "fix the timing jitter", parseSeed)
    .option("--no-color", "draw without colour");
  return addStoreOptions(command, "the run")
    .addHelpText("after", runHelpText)
    .action((options: RunCommandOptions) => run(options, deps));
}

/** The help after the options: what an outcome depends on, exit codes, examples. */
const runHelpText = [
  "",
  "A run's outcome depends only on scenario, mode and seed: --speed, machine load and the",
  "store's latency change how long you wait, never what happens.",
  "Exit codes: 0 done (a collision is a finding), 1 runtime failure, 2 usage or invalid scenario.",
  "",
  "Examples:",
  "  $ shared-ctx run --mode naive                 isolated agents: the collision, found at review",
  "  $ shared-ctx run --mode broadcast --scenario late-decision",
  "                                                plain message passing: the build is not interrupted",
  "  $ shared-ctx run --mode group-chat --scenario late-decision",
  "                                                the strongest message passing: its listener interrupts it",
  "  $ shared-ctx run --mode statewave --scenario late-decision",
  "                                                the same agents: the build is cut short in time",
  "  $ shared-ctx run --scenario late-decision --json --seed 7",
  '  $ shared-ctx run --task "Replace the legacy password-reset module with magic links"',
  '  $ shared-ctx scenario init --task "…" --out mine.yaml   the same team, as a file to edit',
].join("\n");

/** What `run --task` adds to the run: the JSON fields and the closing line. */
type TaskExtras = Awaited<ReturnType<typeof prepareTask>>;

/** `run`'s action: the scenario (or task) and model server checked, then one run, then its summary. */
async function run(options: RunCommandOptions, deps: CliDeps): Promise<void> {
  if (options.task !== undefined && options.scenario !== undefined) {
    throw new UsageError("use either --scenario or --task, not both");
  }
  // Loaded here, not at the top, so `--help` and the other commands start fast.
  const { loadScenario, scenarioFromTask } = await import("../../scenario/load-scenario.js");
  const brain = await brainFromEnv(deps);
  const onTask =
    options.task !== undefined ? await prepareTask(deps, options.task, brain, options) : undefined;
  const scenario =
    onTask?.scenario ??
    (options.task !== undefined
      ? scenarioFromTask(options.task)
      : await loadScenario(options.scenario ?? defaultScenarioName, { cwd: deps.cwd }));
  // Before any agent starts: a model server that is down is named now, in one line.
  await checkModelServer(deps.env, { signal: deps.signal });
  await withSelectedStore(options, deps, {}, (store) =>
    playRun(deps, { scenario, store, brain }, options, onTask),
  );
}

/** One run, shown as JSON, live in a terminal, or as plain lines, then summarised. */
async function playRun(
  deps: CliDeps,
  parts: Pick<StartRunOptions, "scenario" | "store" | "brain">,
  options: RunCommandOptions,
  onTask: TaskExtras,
): Promise<void> {
  const [
    { startRun },
    { isColorDisabled },
    { createPlainRunPrinter, writeRunJson, writeRunSummary },
  ] = await Promise.all([
    import("../../scenario/scenario-runner.js"),
    import("../../ui/theme/tokens.js"),
    import("../output.js"),
  ]);
  const handle = startRun({
    ...parts,
    mode: options.mode,
    // --json is read by scripts, not watched: no reason to pace it.
    ...(options.json ? {} : { speed: options.speed }),
    ...(options.seed !== undefined ? { seed: options.seed } : {}),
    signal: deps.signal,
  });
  const events: ScenarioEvent[] = [];
  handle.subscribe((event) => events.push(event));
  if (options.json) {
    const summary = await handle.done;
    writeRunJson(deps.stdout, summary, events, handle.realTime(), onTask?.json ?? {});
    return;
  }
  if (drawsLive(deps) && isTerminal(deps.stdout)) {
    const { renderRunLive } = await import("../../ui/render-run.js");
    await renderRunLive(handle, {
      stdout: deps.stdout,
      ...(deps.stdin ? { stdin: deps.stdin } : {}),
      noColor: isColorDisabled(deps.env, !options.color),
      mode: options.mode,
      signal: deps.signal,
    });
  } else {
    handle.subscribe(createPlainRunPrinter(deps.stdout));
  }
  const summary = await handle.done;
  writeRunSummary(deps.stdout, summary, handle.realTime(), options);
  if (onTask?.closing !== undefined) deps.stdout.write(`${onTask.closing}\n`);
}
