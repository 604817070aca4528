import { SharedCtxError } from "../errors.js";
import { ExitCode, type ExitCodeValue } from "./exit-codes.js";

/** An error the CLI reports as one clear message and an exit code, with no stack trace. */
export class FatalError extends SharedCtxError {
  override readonly name: string = "FatalError";
  readonly exitCode: ExitCodeValue;

  constructor(message: string, options?: { exitCode?: ExitCodeValue; cause?: unknown }) {
    super(message, { cause: options?.cause });
    this.exitCode = options?.exitCode ?? ExitCode.failure;
  }
}

/** A mistake in the command line or an input file (exit code 2). */
export class UsageError extends FatalError {
  override readonly name: string = "UsageError";

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, { exitCode: ExitCode.usage, cause: options?.cause });
  }
}

/**
 * `error` as a {@link UsageError} when it is a `userInput` error (the user's input was wrong: exit
 * 2, one line), else `error` itself: what a command rethrows from a library call.
 */
export function asUsageErrorWhen(
  error: unknown,
  userInput: abstract new (...args: never[]) => Error,
): unknown {
  return error instanceof userInput ? new UsageError(error.message, { cause: error }) : error;
}
