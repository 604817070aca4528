import { SharedCtxError } from "../errors.js";

/** One problem in a scenario file: where, and what was expected there. */
export interface ScenarioIssue {
  /** Dotted path, e.g. `agents.1.role`; empty for the whole file. */
  field: string;
  expected: string;
}

/** A scenario file that cannot be used; the message names the file, the field and what was expected. */
export class ScenarioValidationError extends SharedCtxError {
  override readonly name: string = "ScenarioValidationError";
  /** The file, or the scenario name when there is no file. */
  readonly path: string;
  readonly issues: ScenarioIssue[];

  constructor(path: string, issues: ScenarioIssue[], options?: { cause?: unknown }) {
    const lines = issues.map(
      (issue) => `  ${issue.field === "" ? "(file)" : issue.field}: expected ${issue.expected}`,
    );
    super(`invalid scenario ${path}:\n${lines.join("\n")}`, options);
    this.path = path;
    this.issues = issues;
  }
}
