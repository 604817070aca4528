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
