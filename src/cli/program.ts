import { Command } from "commander";
import type { CliDeps } from "./cli-deps.js";
import { makeBenchCommand } from "./commands/bench.js";
import { makeCheckCommand } from "./commands/check.js";
import { makeDemoCommand } from "./commands/demo.js";
import { makeHookCommand } from "./commands/hook.js";
import { makeInitCommand } from "./commands/init.js";
import { makeMcpCommand } from "./commands/mcp.js";
import { makeModulesCommand } from "./commands/modules.js";
import { makeRunCommand } from "./commands/run.js";
import { makeRunsCommand } from "./commands/runs.js";
import { makeScenarioCommand } from "./commands/scenario.js";
import { makeServeCommand } from "./commands/serve.js";
import { makeTimelineCommand } from "./commands/timeline.js";
import { makeWatchCommand } from "./commands/watch.js";
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
    .showSuggestionAfterError(true)
    .addHelpText(
      "after",
      [
        "",
        "Start here:",
        "  $ shared-ctx demo                          messages to everyone vs shared context, side by side",
        "  $ shared-ctx run --mode statewave          one mode, with a summary (--mode naive|broadcast|statewave)",
        "  $ shared-ctx timeline <run-id>             who knew what, when",
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
    makeInitCommand,
  ]) {
    program.addCommand(make(deps));
  }
  routeOutputAndExits(program, deps);
  return program;
}

/**
 * `addCommand()` does not pass output settings or `exitOverride()` down to subcommands: without
 * this, a bad option on `shared-ctx run` would print to the real stderr and exit the process
 * instead of reaching `runCli`'s exit-code mapping. Applied to the whole tree, once.
 */
function routeOutputAndExits(command: Command, deps: CliDeps): void {
  command.exitOverride().configureOutput({
    writeOut: (text) => deps.stdout.write(text),
    writeErr: (text) => deps.stderr.write(text),
  });
  for (const child of command.commands) routeOutputAndExits(child, deps);
}
