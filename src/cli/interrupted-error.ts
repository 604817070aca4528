import { ExitCode, type ExitCodeValue } from "./exit-codes.js";
import { FatalError } from "./fatal-error.js";

/** The signals the CLI stops on: Ctrl-C, a polite kill, and the terminal going away. */
export const stopSignals = ["SIGINT", "SIGTERM", "SIGHUP"] as const;

/** One of {@link stopSignals}. */
export type StopSignal = (typeof stopSignals)[number];

const exitCodes: Record<StopSignal, ExitCodeValue> = {
  SIGINT: ExitCode.interrupted,
  SIGTERM: ExitCode.terminated,
  SIGHUP: ExitCode.hangup,
};

/**
 * The user stopped a command before it finished (Ctrl-C, SIGTERM, a closed terminal, or Ctrl-C in
 * the demo's raw-mode terminal). It is the abort reason of `CliDeps.signal`, so the runner records
 * the run as `interrupted` with this message, and the exit code is the shell's own for that signal
 * (130, 143, 129).
 */
export class InterruptedError extends FatalError {
  override readonly name: string = "InterruptedError";
  readonly signal: StopSignal;

  constructor(signal: StopSignal) {
    super(`interrupted by ${signal}`, { exitCode: exitCodes[signal] });
    this.signal = signal;
  }
}
