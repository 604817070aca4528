import { messageOf, SharedCtxError } from "../errors.js";
import type { CliDeps } from "./cli-deps.js";
import { ExitCode, type ExitCodeValue } from "./exit-codes.js";
import { FatalError } from "./fatal-error.js";
import { OutputClosedError } from "./output-closed-error.js";

/** Errors that mean "the input was wrong" rather than "something failed". */
const usageErrorNames = new Set([
  "UsageError",
  "ScenarioValidationError",
  "UnknownRunError",
  "UnknownSubjectError",
  "DbPathError",
]);

/** Prints one clear line (and its causes) for an error and returns the exit code for it. */
export function reportError(error: unknown, deps: CliDeps): ExitCodeValue {
  const debug = Boolean(deps.env.SHARED_CTX_DEBUG);
  if (SharedCtxError.isInstance(error)) {
    deps.stderr.write(`shared-ctx: ${error.message}\n`);
    if (debug && error.stack) deps.stderr.write(`${error.stack}\n`);
    if (error instanceof FatalError) return error.exitCode;
    return usageErrorNames.has(error.name) ? ExitCode.usage : ExitCode.failure;
  }
  const message = messageOf(error);
  deps.stderr.write(`shared-ctx: unexpected error: ${message}\n`);
  if (error instanceof Error && error.stack) {
    deps.stderr.write(
      debug ? `${error.stack}\n` : "(set SHARED_CTX_DEBUG=1 for the stack trace)\n",
    );
  }
  return ExitCode.failure;
}

/**
 * Once `deps.signal` has aborted, what a command throws is a consequence of being stopped (an
 * aborted sleep, a cancelled read, a run that rejected with the abort reason): report why it
 * stopped instead. A closed stdout is quiet and exits 0; a signal says so in one line and exits
 * 130 or 143. Undefined when the command was not stopped.
 */
export function reportStop(deps: CliDeps): ExitCodeValue | undefined {
  if (!deps.signal.aborted) return undefined;
  const reason: unknown = deps.signal.reason;
  if (reason instanceof OutputClosedError) return reason.exitCode;
  if (reason instanceof FatalError) return reportError(reason, deps);
  return undefined;
}
