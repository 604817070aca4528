import { SharedCtxError } from "../../errors.js";
import type { FieldKind } from "../field-kind.js";

/** A value was written to a field whose schema declares a kind the value does not fit. */
export class FieldKindError extends SharedCtxError {
  override readonly name: string = "FieldKindError";
  readonly namespace: string;
  readonly key: string;
  /** The kind the schema declares. */
  readonly expected: FieldKind;
  /** `typeof` the value, or `array`/`null`. */
  readonly received: string;

  constructor(options: { namespace: string; key: string; expected: FieldKind; value: unknown }) {
    const received =
      options.value === null
        ? "null"
        : Array.isArray(options.value)
          ? "array"
          : typeof options.value;
    super(
      `${options.namespace}/${options.key} is declared as ${options.expected} and cannot take a ${received}`,
    );
    this.namespace = options.namespace;
    this.key = options.key;
    this.expected = options.expected;
    this.received = received;
  }
}
