import { SharedCtxError } from "../../errors.js";

/**
 * An embedded database path that cannot be used, found before anything is created or opened:
 * `folder` is the folder that is missing, not a folder, or cannot be created; `path` is the
 * database file asked for.
 */
export class DbPathError extends SharedCtxError {
  override readonly name: string = "DbPathError";
  /** The database file asked for. */
  readonly path: string;
  /** The file or folder at fault (the database path itself when it is a folder). */
  readonly folder: string;
  /** What is wrong there, in plain words (`is a file, not a folder`). */
  readonly problem: string;

  constructor(path: string, folder: string, problem: string, options?: { cause?: unknown }) {
    super(`cannot use the database ${path}: ${folder} ${problem}`, options);
    this.path = path;
    this.folder = folder;
    this.problem = problem;
  }
}
