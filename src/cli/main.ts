import { CommanderError } from "commander";
import type { CliDeps } from "./cli-deps.js";
import { reportError } from "./error-report.js";
import { ExitCode } from "./exit-codes.js";
import { createProgram } from "./program.js";

/**
 * Runs the CLI with the real process around it and returns the exit code.
 * The only place (with bin/) that touches `process`.
 */
export async function main(argv: readonly string[]): Promise<number> {
  const { config } = await import("dotenv");
  // .env is optional; quiet so it never prints into --json output.
  config({ quiet: true });

  const controller = new AbortController();
  const onSignal = () => controller.abort();
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);

  const deps: CliDeps = {
    stdout: process.stdout,
    stderr: process.stderr,
    stdin: process.stdin,
    env: process.env,
    cwd: process.cwd(),
    signal: controller.signal,
  };
  try {
    return await runCli(argv, deps);
  } finally {
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
  }
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
    return reportError(error, deps);
  }
}
