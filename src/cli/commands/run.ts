import { Command, Option } from "commander";
import { defaultScenarioName } from "../../scenario/default-scenario.js";
import type { RunMode, ScenarioEvent } from "../../scenario/scenario-events.js";
import type { CliDeps } from "../cli-deps.js";
import {
  brainFromEnv,
  isTerminal,
  parsePositiveNumber,
  parseSeed,
  storeOptions,
  storeSelection,
} from "../command-helpers.js";
import { UsageError } from "../fatal-error.js";
import { checkModelServer } from "../model-server-check.js";

/** The CLI's default speed: the shipped scenarios take 15–30 s of scenario time, so 2–3 s. */
export const defaultRunSpeed = 10;

interface RunCommandOptions {
  mode: RunMode;
  scenario?: string;
  task?: string;
  json?: boolean;
  speed: number;
  seed?: number;
  store?: "embedded" | "statewave";
  db?: string;
  url?: string;
  databaseUrl?: string;
  color: boolean;
}

/** `shared-ctx run`: one pipeline on one scenario (or a free-text task), with a summary. */
export function makeRunCommand(deps: CliDeps): Command {
  return new Command("run")
    .description(
      "run one coordination mode (isolated messages, broadcast messages, a group chat, or the shared context) and summarise it",
    )
    .addOption(
      new Option(
        "--mode <mode>",
        "naive: agents see only their own brief; broadcast: every message to every agent, nothing more; group-chat: the strongest message passing (interrupts, transcript, first-come claims, filtered reading); statewave: the shared context",
      )
        .choices(["naive", "broadcast", "group-chat", "statewave"])
        .default("statewave"),
    )
    .option(
      "--scenario <name|path>",
      `a shipped scenario or a .yaml/.json file (default: ${defaultScenarioName})`,
    )
    .option("--task <text>", "a free-text task instead of a scenario (decomposed per role)")
    .option("--json", "print one JSON document (summary and events) instead of lines")
    .option(
      "--speed <n>",
      "playback speed of the live view (1 = scenario timings in real time); never changes the outcome",
      parsePositiveNumber,
      defaultRunSpeed,
    )
    .option("--seed <n>", "fix the timing jitter", parseSeed)
    .option("--no-color", "draw without colour")
    .addOption(storeOptions.kind("the run"))
    .addOption(storeOptions.db())
    .addOption(storeOptions.url())
    .addOption(storeOptions.databaseUrl())
    .addHelpText(
      "after",
      [
        "",
        "Examples:",
        "  $ shared-ctx run --mode naive                 isolated agents: the collision, found at review",
        "  $ shared-ctx run --mode broadcast --scenario late-decision",
        "                                                the strongest message passing: still collides",
        "  $ shared-ctx run --mode statewave --scenario late-decision",
        "                                                the same agents: the build is cut short in time",
        "  $ shared-ctx run --scenario late-decision --json --seed 7",
        "",
        "A run's outcome depends only on scenario, mode and seed: --speed, machine load and the",
        "store's latency change how long you wait, never what happens.",
        '  $ shared-ctx run --task "Build a payment service. Deprecate legacy Stripe v1 module."',
        "",
        "Exit codes: 0 done (a collision is a finding), 1 runtime failure, 2 usage or invalid scenario.",
      ].join("\n"),
    )
    .action(async (options: RunCommandOptions) => {
      if (options.task !== undefined && options.scenario !== undefined) {
        throw new UsageError("use either --scenario or --task, not both");
      }
      // Loaded here, not at the top, so `--help` and the other commands start fast.
      const [
        { loadScenario, scenarioFromTask },
        { startRun },
        { openStore },
        { isColorDisabled },
        { createPlainRunPrinter, writeRunJson, writeRunSummary },
      ] = await Promise.all([
        import("../../scenario/load-scenario.js"),
        import("../../scenario/scenario-runner.js"),
        import("../../ui/data/open-store.js"),
        import("../../ui/theme/tokens.js"),
        import("../output.js"),
      ]);
      const scenario =
        options.task !== undefined
          ? scenarioFromTask(options.task)
          : await loadScenario(options.scenario ?? defaultScenarioName, { cwd: deps.cwd });
      const brain = await brainFromEnv(deps);
      // Before any agent starts: a model server that is down is named now, in one line.
      await checkModelServer(deps.env, { signal: deps.signal });
      const store = await openStore(storeSelection(options, deps));
      try {
        const handle = startRun({
          scenario,
          mode: options.mode,
          store,
          brain,
          // --json is read by scripts, not watched: no reason to pace it.
          ...(options.json ? {} : { speed: options.speed }),
          ...(options.seed !== undefined ? { seed: options.seed } : {}),
          signal: deps.signal,
        });
        const events: ScenarioEvent[] = [];
        handle.subscribe((event) => events.push(event));
        if (options.json) {
          const summary = await handle.done;
          writeRunJson(deps.stdout, summary, events, handle.realTime());
          return;
        }
        if (isTerminal(deps.stdout)) {
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
      } finally {
        await store.close();
      }
    });
}
