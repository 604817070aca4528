import { existsSync } from "node:fs";
import { join } from "node:path";
import { CommanderError } from "commander";
import type { CliDeps } from "./cli-deps.js";
import { reportError } from "./error-report.js";
import { ExitCode, type ExitCodeValue } from "./exit-codes.js";
import { FatalError } from "./fatal-error.js";
import { InterruptedError, type StopSignal, stopSignals } from "./interrupted-error.js";
import { OutputClosedError } from "./output-closed-error.js";
import { createProgram } from "./program.js";

/**
 * Runs the CLI with the real process around it and returns the exit code.
 * The only place (with bin/) that touches `process`.
 */
export async function main(argv: readonly string[]): Promise<number> {
  // .env is optional (and dotenv is not loaded without one: start-up cost); quiet so it never
  // prints into --json output.
  if (existsSync(join(process.cwd(), ".env"))) {
    const { config } = await import("dotenv");
    config({ quiet: true });
  }

  const controller = new AbortController();
  // The first signal stops the command cleanly (agents stopped, run recorded `interrupted`); a
  // second one ends the process at once. `on`, not `once`: Ink's signal-exit re-raises a signal
  // that no other listener handles, which would kill the process before the run is recorded.
  const onSignal = (signal: StopSignal) => {
    if (controller.signal.aborted) process.exit(new InterruptedError(signal).exitCode);
    controller.abort(new InterruptedError(signal));
  };
  for (const signal of stopSignals) process.on(signal, onSignal);
  // Without a listener, a reader that goes away (`run | head -2`) crashes the process with an
  // EPIPE stack. Never removed: writes still queued when `main` returns fail the same way.
  process.stdout.on("error", (error: NodeJS.ErrnoException) => {
    controller.abort(
      error.code === "EPIPE"
        ? new OutputClosedError({ cause: error })
        : new FatalError(`cannot write to standard output: ${error.message}`, { cause: error }),
    );
  });
  // Nothing useful can be said once stderr is gone too.
  process.stderr.on("error", () => undefined);

  const deps: CliDeps = {
    stdout: process.stdout,
    stderr: process.stderr,
    // A getter: Node builds process.stdin (a TTY or socket stream) on first access, which most
    // commands never make (start-up).
    get stdin() {
      return process.stdin;
    },
    env: process.env,
    cwd: process.cwd(),
    signal: controller.signal,
  };
  try {
    return await runCli(argv, deps);
  } finally {
    for (const signal of stopSignals) process.off(signal, onSignal);
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
    return reportStop(deps) ?? reportError(error, deps);
  }
}

/**
 * Once `deps.signal` has aborted, what a command throws is a consequence of being stopped (an
 * aborted sleep, a cancelled read, a run that rejected with the abort reason): report why it
 * stopped instead. A closed stdout is quiet and exits 0; a signal says so in one line and exits
 * 130 or 143. Undefined when the command was not stopped.
 */
function reportStop(deps: CliDeps): ExitCodeValue | undefined {
  if (!deps.signal.aborted) return undefined;
  const reason: unknown = deps.signal.reason;
  if (reason instanceof OutputClosedError) return reason.exitCode;
  if (reason instanceof FatalError) return reportError(reason, deps);
  return undefined;
}
