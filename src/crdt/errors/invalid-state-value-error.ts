import { SharedCtxError } from "../../errors.js";

/** A value that is not JSON (undefined, a function, NaN, a class instance) was written to shared state. */
export class InvalidStateValueError extends SharedCtxError {
  override readonly name: string = "InvalidStateValueError";
  readonly namespace: string;
  readonly key: string;

  constructor(options: { namespace: string; key: string }) {
    super(
      `${options.namespace}/${options.key}: shared state holds JSON values only (no undefined, functions, NaN or class instances)`,
    );
    this.namespace = options.namespace;
    this.key = options.key;
  }
}
