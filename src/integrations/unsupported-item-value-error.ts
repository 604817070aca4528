import { InvalidStateValueError } from "../crdt/errors/invalid-state-value-error.js";

/**
 * A LangGraph store item holds a value `SyncedStore` cannot carry between processes (a class
 * instance, a function, a symbol, a typed array). A subclass of `InvalidStateValueError`, so code
 * catching that one still catches this.
 */
export class UnsupportedItemValueError extends InvalidStateValueError {
  override readonly name: string = "UnsupportedItemValueError";
  /** The item's field holding the value, dotted (`""` for the whole value). */
  readonly field: string;
  /** What the value is, e.g. `a Uint8Array instance`. */
  readonly type: string;

  constructor(options: { namespace: string; field: string; type: string }) {
    super({ namespace: options.namespace, key: options.field });
    this.field = options.field;
    this.type = options.type;
    this.message =
      `SyncedStore cannot store ${options.type} in item ${itemLabel(options.namespace)}` +
      `${options.field === "" ? "" : ` at field "${options.field}"`}: items hold JSON, Date, Map, ` +
      "Set, RegExp, bigint, NaN, ±Infinity and undefined (convert it to one of these first)";
  }
}

/** `langgraph:["plan","trip"]` as `["plan"] / "trip"`. */
function itemLabel(namespace: string): string {
  const start = namespace.indexOf("[");
  try {
    const path: unknown = JSON.parse(namespace.slice(start));
    if (Array.isArray(path) && path.length > 0) {
      return `${JSON.stringify(path.slice(0, -1))} / ${JSON.stringify(path[path.length - 1])}`;
    }
  } catch {
    // Not an item namespace: name it as given.
  }
  return namespace;
}
