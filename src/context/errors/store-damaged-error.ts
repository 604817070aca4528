import { SharedCtxError } from "../../errors.js";

/**
 * The database file is damaged (`PRAGMA quick_check` found problems, or SQLite called it corrupt)
 * or not a database at all. Names the file and what to do; nothing was written.
 */
export class StoreDamagedError extends SharedCtxError {
  override readonly name: string = "StoreDamagedError";
  readonly path: string;
  /** What SQLite reported, e.g. the first lines of `quick_check`. */
  readonly detail: string;

  constructor(path: string, detail: string, options?: { cause?: unknown }) {
    super(
      detail === "SQLITE_NOTADB"
        ? `The file at ${path} is not a shared-ctx database (${detail}). Give another --db file, or move this one away to start afresh.`
        : `The store at ${path} is damaged (${detail}). Restore it from a backup, or move it away to start afresh; \`sqlite3 ${path} .recover\` may save what is left.`,
      options,
    );
    this.path = path;
    this.detail = detail;
  }
}
