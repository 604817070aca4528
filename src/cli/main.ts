import { CommanderError } from "commander";
import type { CliDeps } from "./cli-deps.js";
import { reportError, reportStop } from "./error-report.js";
import { ExitCode } from "./exit-codes.js";
import { withProcess } from "./process-deps.js";
import { createProgram } from "./program.js";

/**
 * Runs the CLI with the real process around it (process-deps.ts) and returns the exit code.
 */
export async function main(argv: readonly string[]): Promise<number> {
  return withProcess((deps) => runCli(argv, deps));
}

/** Parses and runs one command line; maps every error to a message and an exit code. */
export async function runCli(argv: readonly string[], deps: CliDeps): Promise<number> {
  const program = createProgram(deps).exitOverride();
  try {
    await program.parseAsync([...argv], { from: "user" });
    return ExitCode.ok;
  } catch (error) {
    if (error instanceof CommanderError) {
      // Commander already printed its message (unknown option, missing argument, help).
      if (
        error.code === "commander.helpDisplayed" ||
        error.code === "commander.version" ||
        error.code === "commander.help"
      ) {
        return ExitCode.ok;
      }
      return error.exitCode === 0 ? ExitCode.ok : ExitCode.usage;
    }
    return reportStop(deps) ?? reportError(error, deps);
  }
}
