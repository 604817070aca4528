import { ExitCode } from "./exit-codes.js";
import { FatalError } from "./fatal-error.js";

/**
 * Whoever read standard output has gone (`shared-ctx run | head -2`: EPIPE). It is the abort reason
 * of `CliDeps.signal`: the command stops its work, the runner records the run as `interrupted`
 * with this message, and the process ends quietly with exit code 0, as `yes | head` does — the
 * reader chose to stop reading, nothing failed.
 */
export class OutputClosedError extends FatalError {
  override readonly name: string = "OutputClosedError";

  constructor(options?: { cause?: unknown }) {
    super("standard output was closed by its reader", {
      exitCode: ExitCode.ok,
      cause: options?.cause,
    });
  }
}
