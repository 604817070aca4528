import { Command, Option } from "commander";
import type { Brain } from "../../agents/brain.js";
import type { ContextStore } from "../../context/context-store.js";
import { defaultDemoScenario, defaultScenarioReasons } from "../../scenario/default-scenario.js";
import type { Scenario } from "../../scenario/scenario-schema.js";
import { helpKeys } from "../../ui/format/demo-keys.js";
import type { DemoRuns } from "../../ui/run-source.js";
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
import { FatalError, UsageError } from "../fatal-error.js";
import { InterruptedError } from "../interrupted-error.js";
import { checkModelServer } from "../model-server-check.js";
import { defaultRunSpeed } from "./run.js";

interface DemoCommandOptions extends StoreFlags {
  scenario?: string;
  task?: string;
  baseline: "naive" | "broadcast" | "group-chat";
  speed: number;
  seed?: number;
  color: boolean;
}

/**
 * Starts rounds of both pipelines on one store and remembers them, so quitting can stop whatever
 * still runs before the store closes.
 */
function createRoundStarter(
  deps: CliDeps,
  store: ContextStore,
  brain: Brain,
  options: DemoCommandOptions,
  first: { readonly name: string; readonly scenario: Scenario; readonly keep?: boolean },
) {
  const active = new Set<DemoRuns>();
  // The first round plays the scenario the command has just validated; later rounds read theirs
  // again (a scenario file edited between rounds plays as it is now).
  let validated: typeof first | undefined = first;
  const start = async (scenarioName: string): Promise<DemoRuns> => {
    const [{ loadScenario }, { startRun }, { scenarioFocus }] = await Promise.all([
      import("../../scenario/load-scenario.js"),
      import("../../scenario/scenario-runner.js"),
      import("../../ui/format/caption.js"),
    ]);
    const scenario =
      validated?.name === scenarioName
        ? validated.scenario
        : await loadScenario(scenarioName, { cwd: deps.cwd });
    // A task's scenario has no file to read again: every round plays it.
    if (first.keep !== true || scenarioName !== first.name) validated = undefined;
    const controller = new AbortController();
    const signal = AbortSignal.any([deps.signal, controller.signal]);
    // The same seed on both sides: only the coordination differs.
    const seed = options.seed ?? Math.floor(Math.random() * 2 ** 31);
    const { createPlaybackGroup } = await import("../../scenario/playback-group.js");
    // Both panes play in step: the same scenario moment on both sides, whatever the store's speed.
    const playback = createPlaybackGroup();
    const common = { scenario, store, brain, speed: options.speed, seed, signal, playback };
    // The left pane: the message-passing baseline the user chose (`naive` field: the baseline run).
    const naive = startRun({ ...common, mode: options.baseline });
    const statewave = startRun({ ...common, mode: "statewave" });
    const settled = Promise.allSettled([naive.done, statewave.done]);
    const runs: DemoRuns = {
      naive,
      statewave,
      focus: scenarioFocus(scenario),
      stop: async () => {
        // The runs' record says why they stopped (unless a signal or a closed stdout did it first).
        controller.abort(
          new FatalError("stopped in the demo (run again, another scenario, or quit)"),
        );
        await settled;
        active.delete(runs);
      },
    };
    active.add(runs);
    void settled.then(() => active.delete(runs));
    return runs;
  };
  const stopAll = async () => {
    await Promise.all([...active].map((runs) => runs.stop()));
  };
  return { start, stopAll };
}

/**
 * `demo --task`: the team `run --task` puts on the task, validated, with the lines shown before
 * the runs (who does what, where each piece came from, what each mode will face).
 * @throws UsageError for a task the rules find no work in.
 */
async function taskScenario(task: string): Promise<{ scenario: Scenario; before: string[] }> {
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
  if (!team.hasWork) throw new UsageError(noWorkMessage(task));
  return {
    scenario,
    before: [...describeTeam(team), ...describeFaces(whatModesFace(scenario)), ""],
  };
}

/** `shared-ctx demo`: naive vs shared context, side by side, live. */
export function makeDemoCommand(deps: CliDeps): Command {
  const command = new Command("demo")
    .description(
      "the same agents on the same task: message passing vs one shared context, side by side, live",
    )
    .addOption(
      new Option(
        "--baseline <mode>",
        "the left pane: group-chat (the strongest message passing: interrupts, transcript, first-come claims, filtered reading), broadcast (every message to every agent, nothing more) or naive (isolated agents, the classic comparison)",
      )
        .choices(["group-chat", "broadcast", "naive"])
        .default("group-chat"),
    )
    .option(
      "--scenario <name|path>",
      `a shipped scenario or a .yaml/.json file (default: ${defaultScenarioReasons.demo}; with --baseline naive, ${defaultDemoScenario.naive}, \`run\`'s default)`,
    )
    .option(
      "--speed <n>",
      "playback speed (1 = scenario timings in real time); never changes the outcome",
      parsePositiveNumber,
      defaultRunSpeed,
    )
    .option("--task <text>", "your own task instead of a scenario (the team run --task puts on it)")
    .option("--seed <n>", "fix the timing jitter (both pipelines use the same seed)", parseSeed)
    .option("--no-color", "draw without colour (NO_COLOR is honoured too)");
  return addStoreOptions(command, "the runs")
    .addHelpText("after", demoHelpText)
    .action((parsed: DemoCommandOptions) => demo(parsed, deps));
}

/** The help after the options: the demo's keys, what a pipe gets, examples. */
const demoHelpText = [
  "",
  "Keys in a terminal:",
  ...helpKeys.map(([keys, action]) => `  ${keys.padEnd(11)}${action}`),
  "Without a terminal (a pipe, CI) it prints both runs, the verdicts and the comparison.",
  "",
  "Examples:",
  "  $ shared-ctx demo",
  "  $ shared-ctx demo --baseline naive            the classic comparison: isolated agents",
  "  $ shared-ctx demo --baseline broadcast        plain message passing (no interrupt, no transcript)",
  "  $ shared-ctx demo --scenario two-coders --speed 5",
  '  $ shared-ctx demo --task "Replace the legacy password-reset module with magic links"',
  "  $ shared-ctx demo | tee demo.txt",
].join("\n");

/** `demo`'s action: the scenario validated, the model server checked, then both runs shown. */
async function demo(parsed: DemoCommandOptions, deps: CliDeps): Promise<void> {
  if (parsed.task !== undefined && parsed.scenario !== undefined) {
    throw new UsageError("use either --scenario or --task, not both");
  }
  const options = {
    ...parsed,
    scenario: parsed.scenario ?? defaultDemoScenario[parsed.baseline],
  };
  const onTask = parsed.task !== undefined ? await taskScenario(parsed.task) : undefined;
  // In a terminal, the UI (Ink and React: the slowest imports) starts loading at once, so its
  // file reads overlap the scenario's validation; the import below awaits the same module.
  if (drawsLive(deps)) import("../../ui/render-demo.js").catch(() => undefined);
  // The store's module loads while the scenario is validated (withSelectedStore then has it).
  const [scenario] = await Promise.all([
    onTask?.scenario ?? validatedScenario(options.scenario, deps),
    import("../../ui/data/open-store.js"),
  ]);
  // The picker and "run again" know the task's scenario by its name.
  if (onTask !== undefined) options.scenario = onTask.scenario.name;
  const brain = await brainFromEnv(deps);
  // Before any agent starts: a model server that is down is named now, in one line.
  await checkModelServer(deps.env, { signal: deps.signal });
  const first = { name: options.scenario, scenario, keep: onTask !== undefined };
  // Who does what on the task, and where each piece came from, above the runs.
  const before = onTask !== undefined ? `${onTask.before.join("\n")}\n` : "";
  if (drawsLive(deps) && isTerminal(deps.stdout)) {
    deps.stdout.write(before);
    await demoLive(deps, deps.stdout, brain, first, options);
    return;
  }
  await withSelectedStore(options, deps, {}, async (store) => {
    const rounds = createRoundStarter(deps, store, brain, options, first);
    try {
      deps.stdout.write(before);
      const { printDemoPlain } = await import("../../ui/plain-demo.js");
      await printDemoPlain(await rounds.start(options.scenario), deps.stdout, {
        width: deps.stdout.columns ?? 80,
        storeFlags: options,
      });
    } finally {
      // Whatever still runs stops before the store closes.
      await rounds.stopAll();
    }
  });
}

/** The store open, with the rounds started on it. */
interface OpenDemo {
  readonly store: ContextStore;
  readonly rounds: ReturnType<typeof createRoundStarter>;
}

/**
 * The live demo, its first frame (header, empty panes) drawn before the store is open (start-up:
 * opening it loads the store's driver and reads the file): the first round starts, and `t` reads,
 * once it is. A store that cannot be opened ends the demo with its error.
 */
async function demoLive(
  deps: CliDeps,
  stdout: NodeJS.WriteStream,
  brain: Brain,
  first: Parameters<typeof createRoundStarter>[4],
  options: DemoCommandOptions & { scenario: string },
): Promise<void> {
  let uiEnded = () => {};
  const ended = new Promise<void>((resolve) => {
    uiEnded = resolve;
  });
  let lifetime: Promise<void> | undefined;
  let ready: Promise<OpenDemo> | undefined;
  // Called once the first frame is drawn (and by whatever needs the store, should it come first).
  const openDemo = (): Promise<OpenDemo> => {
    if (ready !== undefined) return ready;
    let opened = (_demo: OpenDemo) => {};
    const open = new Promise<OpenDemo>((resolve) => {
      opened = resolve;
    });
    const running = withSelectedStore(options, deps, {}, async (store) => {
      const rounds = createRoundStarter(deps, store, brain, options, first);
      opened({ store, rounds });
      try {
        await ended;
      } finally {
        // Whatever still runs stops before the store closes.
        await rounds.stopAll();
      }
    });
    // Settles only with the store's failure to open: the UI ends before the store closes.
    ready = Promise.race([open, running.then(() => new Promise<never>(() => {}))]);
    // Both are awaited later (by the UI, then below): no unhandled rejection in between.
    void running.catch(() => undefined);
    void ready.catch(() => undefined);
    lifetime = running;
    return ready;
  };
  try {
    await playLive(deps, stdout, openDemo, options);
  } catch (error) {
    uiEnded();
    await lifetime?.catch(() => undefined);
    throw error;
  }
  uiEnded();
  await lifetime;
}

/** The scenario a name or path names, refused before anything is drawn or stored when bad. */
async function validatedScenario(name: string, deps: CliDeps): Promise<Scenario> {
  // Loaded here, not at the top, so `--help` and the other commands start fast. A shipped scenario
  // was validated by the build (no YAML or zod to load before the first frame) unless edited since.
  const { readCompiledScenario } = await import("../../scenario/compiled-scenarios.js");
  const compiled = await readCompiledScenario(name);
  if (compiled !== undefined) return compiled;
  const { loadScenario } = await import("../../scenario/load-scenario.js");
  return loadScenario(name, { cwd: deps.cwd });
}

/**
 * The live side-by-side UI until the person quits.
 * @throws InterruptedError (or the signal's reason) when Ctrl-C or a signal ended it.
 */
async function playLive(
  deps: CliDeps,
  stdout: NodeJS.WriteStream,
  openDemo: () => Promise<OpenDemo>,
  options: DemoCommandOptions & { scenario: string },
): Promise<void> {
  const [
    { renderDemo },
    { isColorDisabled },
    { readFullTimeline },
    { buildRunTimeline },
    { formatCommandHint },
  ] = await Promise.all([
    import("../../ui/render-demo.js"),
    import("../../ui/theme/tokens.js"),
    import("../../ui/data/read-run.js"),
    import("../../ui/format/run-timeline.js"),
    import("../../ui/format/command-hint.js"),
  ]);
  const ending = await renderDemo({
    stdout,
    ...(deps.stdin ? { stdin: deps.stdin } : {}),
    noColor: isColorDisabled(deps.env, !options.color),
    initialScenario: options.scenario,
    loadScenarios: async () => (await import("../../scenario/load-scenario.js")).listScenarios(),
    start: async (scenarioName) => (await openDemo()).rounds.start(scenarioName),
    ready: openDemo,
    loadTimeline: async (runId) =>
      buildRunTimeline(runId, await readFullTimeline((await openDemo()).store, runId)),
    speed: options.speed,
    baselineMode: options.baseline,
    timelineCommand: (runId) => formatCommandHint(["timeline", runId], options),
    signal: deps.signal,
  });
  // Ctrl-C reaches a raw-mode terminal as a key, not as SIGINT: exit as if it were one.
  if (ending === "interrupt") throw new InterruptedError("SIGINT");
  // A signal unmounts the UI, which then returns normally: still an interruption (130/143).
  if (deps.signal.aborted) throw deps.signal.reason;
}
