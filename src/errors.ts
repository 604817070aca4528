const marker = Symbol.for("shared-ctx.error");

/**
 * Base class of every error shared-ctx throws on purpose. Library code throws these;
 * only `src/cli/` maps them to exit codes and prints them.
 */
export class SharedCtxError extends Error {
  protected readonly [marker] = true;
  override readonly name: string = "SharedCtxError";

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }

  /** True for any shared-ctx error, even one created by another copy of the package. */
  static isInstance(error: unknown): error is SharedCtxError {
    return typeof error === "object" && error !== null && marker in error;
  }
}

/** Raised when an exhaustive switch meets a value its type says cannot exist. */
export function checkExhaustive(value: never): never {
  throw new SharedCtxError(`Unexpected value: ${JSON.stringify(value)}`);
}

/** What a caught value says, for a person: an Error's message, anything else thrown as text. */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
