import { Command, type Option } from "commander";
import type { CliDeps } from "./cli-deps.js";
import { makeBenchCommand } from "./commands/bench.js";
import { makeCheckCommand } from "./commands/check.js";
import { makeDecideCommand, makeRetractCommand } from "./commands/decide.js";
import { makeDecisionsCommand } from "./commands/decisions.js";
import { makeDemoCommand } from "./commands/demo.js";
import { makeHookCommand } from "./commands/hook.js";
import { makeInitCommand } from "./commands/init.js";
import { makeMcpCommand } from "./commands/mcp.js";
import { makeModulesCommand } from "./commands/modules.js";
import { makePromoteCommand } from "./commands/promote.js";
import { makeRunCommand } from "./commands/run.js";
import { makeRunsCommand } from "./commands/runs.js";
import { makeScenarioCommand } from "./commands/scenario.js";
import { makeServeCommand } from "./commands/serve.js";
import { makeTimelineCommand } from "./commands/timeline.js";
import { makeWatchCommand } from "./commands/watch.js";
import { formatStartHere } from "./help-text.js";
import { formatUsageMessage } from "./usage-message.js";
import { packageVersion } from "./version.js";

/**
 * Builds the `shared-ctx` program. Every subcommand is one module exporting `makeXCommand(deps)`;
 * tests call this with fake streams and `exitOverride()`.
 */
export function createProgram(deps: CliDeps): Command {
  const program = new Command("shared-ctx")
    .description(
      "One shared, authoritative context for parallel AI agents: read before acting, publish what you decide.",
    )
    .version(packageVersion(), "-v, --version", "print the version")
    .helpOption("-h, --help", "show help")
    .helpCommand("help [command]", "show help for a command")
    // Our own "did you mean" (usage-message.ts) words it in the house style.
    .showSuggestionAfterError(false)
    .addHelpText(
      "after",
      [
        "",
        ...formatStartHere(),
        "",
        "Configuration: STATEWAVE_URL (use a Statewave server), SHARED_CTX_DB (embedded store file),",
        "SHARED_CTX_DATABASE_URL (a Postgres database), LLM_MODEL / LLM_API_KEY / LLM_BASE_URL (think",
        "with a real model). See .env.example.",
      ].join("\n"),
    );

  for (const make of [
    makeDemoCommand,
    makeRunCommand,
    makeRunsCommand,
    makeScenarioCommand,
    makeTimelineCommand,
    makeWatchCommand,
    makeServeCommand,
    makeMcpCommand,
    makeBenchCommand,
    makeHookCommand,
    makeCheckCommand,
    makeModulesCommand,
    makeDecideCommand,
    makeRetractCommand,
    makeDecisionsCommand,
    makeInitCommand,
    makePromoteCommand,
  ]) {
    program.addCommand(make(deps));
  }
  routeOutputAndExits(program, deps);
  return program;
}

/**
 * `addCommand()` does not pass output settings or `exitOverride()` down to subcommands: without
 * this, a bad option on `shared-ctx run` would print to the real stderr and exit the process
 * instead of reaching `runCli`'s exit-code mapping. Applied to the whole tree, once, with the
 * house style for errors and help pages.
 */
function routeOutputAndExits(command: Command, deps: CliDeps): void {
  command.exitOverride().configureOutput({
    writeOut: (text) => deps.stdout.write(text),
    // Only help shown for a missing subcommand (bare `shared-ctx`, bare `bench`) reaches
    // writeErr: errors go through outputError below. Help asked for is output, not an error.
    writeErr: (text) => deps.stdout.write(text),
    outputError: (text) => deps.stderr.write(text),
  });
  const reportParseError = command.error.bind(command);
  // Commander words its parse errors on two lines without our prefix; each is re-worded from its
  // code and the command it happened on. Messages our own code passes to `error()` stay as given.
  command.error = (message, options) =>
    reportParseError(
      options?.code?.startsWith("commander.")
        ? formatUsageMessage(message, options.code, command)
        : message,
      options,
    );
  command.configureHelp({ optionDescription: describeOption });
  // Commander's own wording ("display help for command") on subcommands, ours on the root.
  command.helpOption("-h, --help", "show help");
  const mandatory = command.options.filter((option) => option.mandatory);
  if (mandatory.length > 0) {
    // `shared-ctx mcp [options]` hid that --subject must be given.
    const args = command.registeredArguments.map((argument) =>
      argument.required ? `<${argument.name()}>` : `[${argument.name()}]`,
    );
    command.usage([...mandatory.map((option) => option.flags), "[options]", ...args].join(" "));
  }
  for (const child of command.commands) routeOutputAndExits(child, deps);
}

/**
 * An option's line in `--help`, in one style: `(one of: a, b; default: x)`, no JSON quotes, and
 * `(required)` for a mandatory option. A description that names its own default (an environment
 * variable, a computed file) keeps its words.
 */
function describeOption(option: Option): string {
  const extra: string[] = [];
  if (option.mandatory) extra.push("required");
  if (option.argChoices) extra.push(`one of: ${option.argChoices.join(", ")}`);
  const showsDefault =
    option.defaultValue !== undefined &&
    typeof option.defaultValue !== "boolean" &&
    !option.description.includes("(default:");
  if (showsDefault) {
    const value = option.defaultValueDescription ?? String(option.defaultValue);
    extra.push(`default: ${value}`);
  }
  return extra.length > 0 ? `${option.description} (${extra.join("; ")})` : option.description;
}
