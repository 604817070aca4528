import { SharedCtxError } from "../../errors.js";

/**
 * The project's shared-ctx configuration (`shared-ctx.config.json`, or the `shared-ctx` section of
 * package.json) is not valid JSON or breaks a rule. Names the file and the field to fix.
 */
export class ProjectConfigError extends SharedCtxError {
  override readonly name: string = "ProjectConfigError";
  /** The file that holds the configuration. */
  readonly path: string;
  /** The offending field, as a path: `modules.billing[0]`, `hooks.onConflict`; `""` for the file. */
  readonly field: string;

  constructor(path: string, field: string, problem: string, options?: { cause?: unknown }) {
    super(`${path}${field ? `: ${field}` : ""}: ${problem}`, options);
    this.path = path;
    this.field = field;
  }
}
