import { ExitCode } from "./exit-codes.js";
import { FatalError } from "./fatal-error.js";

/** The signals the CLI stops on: Ctrl-C and a polite kill. */
export type StopSignal = "SIGINT" | "SIGTERM";

/**
 * The user stopped a command before it finished (Ctrl-C, SIGTERM, or Ctrl-C in the demo's raw-mode
 * terminal). It is the abort reason of `CliDeps.signal`, so the runner records the run as
 * `interrupted` with this message, and the exit code is the shell's own for that signal (130/143).
 */
export class InterruptedError extends FatalError {
  override readonly name: string = "InterruptedError";
  readonly signal: StopSignal;

  constructor(signal: StopSignal) {
    super(`interrupted by ${signal}`, {
      exitCode: signal === "SIGINT" ? ExitCode.interrupted : ExitCode.terminated,
    });
    this.signal = signal;
  }
}
