import { SharedCtxError } from "../../errors.js";

/** The database file was written by a newer shared-ctx, whose schema this one cannot read. */
export class StoreSchemaError extends SharedCtxError {
  override readonly name: string = "StoreSchemaError";
  readonly path: string;
  /** The file's `user_version`. */
  readonly foundVersion: number;
  /** The newest version this code knows. */
  readonly supportedVersion: number;

  constructor(path: string, foundVersion: number, supportedVersion: number) {
    super(
      `The store at ${path} has schema version ${foundVersion}, newer than this shared-ctx understands (${supportedVersion}); upgrade shared-ctx.`,
    );
    this.path = path;
    this.foundVersion = foundVersion;
    this.supportedVersion = supportedVersion;
  }
}
