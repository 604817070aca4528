import { SharedCtxError } from "../../errors.js";

/**
 * A subject the store has nothing for (`watch typo --once`). The message names the store and
 * what it does hold, so a typo does not look like a subject where nothing happened.
 */
export class UnknownSubjectError extends SharedCtxError {
  override readonly name: string = "UnknownSubjectError";
  readonly subjectId: string;
  /** Subjects the store does hold (a few), the near misses first. */
  readonly knownSubjects: readonly string[];

  constructor(options: {
    subjectId: string;
    knownSubjects: readonly string[];
    /** Subjects whose names are a near miss of `subjectId`. */
    nearMisses?: readonly string[];
    storeName?: string;
  }) {
    const where = options.storeName ? ` in ${options.storeName}` : "";
    const near = options.nearMisses ?? [];
    const hint =
      near.length > 0
        ? `did you mean ${near.join(" or ")}? subjects: ${options.knownSubjects.join(", ")}`
        : options.knownSubjects.length > 0
          ? `subjects: ${options.knownSubjects.join(", ")}`
          : "the store is empty: start with `shared-ctx demo`, `shared-ctx run` or `shared-ctx mcp`";
    super(`nothing was written to subject "${options.subjectId}"${where} (${hint})`);
    this.subjectId = options.subjectId;
    this.knownSubjects = options.knownSubjects;
  }
}
