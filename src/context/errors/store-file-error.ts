import { SharedCtxError } from "../../errors.js";

/** What each SQLite failure about the file means, and what to do; other codes are not the file's. */
const fileProblems: ReadonlyArray<{ prefix: string; problem: string }> = [
  {
    prefix: "SQLITE_NOTADB",
    problem:
      "is not a shared-ctx database (or is damaged): point --db at another file, or move this one aside to start a new store",
  },
  {
    prefix: "SQLITE_CORRUPT",
    problem:
      "is damaged: restore it from a backup, or move it aside (with its -wal and -shm files) to start a new store",
  },
  {
    prefix: "SQLITE_READONLY",
    problem:
      "is read-only: give this user write access to the file and its folder (SQLite writes -wal and -shm files beside it), or point --db at a writable file",
  },
  {
    prefix: "SQLITE_CANTOPEN",
    problem: "cannot be opened: check that its folder exists and that this user may write there",
  },
  {
    prefix: "SQLITE_PERM",
    problem: "may not be accessed by this user: check the file's and its folder's permissions",
  },
  { prefix: "SQLITE_FULL", problem: "cannot grow: the disk holding it is full; free some space" },
  {
    prefix: "SQLITE_IOERR",
    problem: "could not be read or written (an I/O error): check the disk",
  },
];

/**
 * The embedded database file failed for a reason about the file itself (damaged, not a database,
 * read-only, disk full, I/O error), named with its path and what to do. Everything else a store
 * throws stays as it is.
 */
export class StoreFileError extends SharedCtxError {
  override readonly name: string = "StoreFileError";
  /** The database file. */
  readonly path: string;
  /** SQLite's extended code (`SQLITE_READONLY_DBMOVED`, `SQLITE_FULL`, …). */
  readonly code: string;

  constructor(path: string, code: string, problem: string, options?: { cause?: unknown }) {
    super(`the database ${path} ${problem} (${code})`, options);
    this.path = path;
    this.code = code;
  }

  /** The `StoreFileError` for a SQLite error about the file at `path`, else `undefined`. */
  static from(error: unknown, path: string): StoreFileError | undefined {
    if (typeof error !== "object" || error === null || !("code" in error)) return undefined;
    const code = (error as { code: unknown }).code;
    if (typeof code !== "string") return undefined;
    const known = fileProblems.find((entry) => code.startsWith(entry.prefix));
    return known ? new StoreFileError(path, code, known.problem, { cause: error }) : undefined;
  }
}
