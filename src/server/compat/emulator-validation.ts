import type { Json } from "./statewave-heuristic.js";

// What v0.7.1 refuses and how it says so: pydantic's validation details (422), the status it
// answers with (`Fail`), and the reading of a request's body and query.

/** A status and body the emulator answers with instead of a route's own answer. */
export class Fail extends Error {
  constructor(
    readonly status: number,
    readonly body: unknown,
  ) {
    super(`emulated ${status}`);
  }
}

/** One pydantic validation detail. */
export type Detail = {
  type: string;
  loc: (string | number)[];
  msg: string;
  input: unknown;
  ctx?: object;
};

/** A 422 with pydantic's details. */
export function validation(details: Detail[]): Fail {
  return new Fail(422, {
    error: { code: "validation_error", message: "Request validation failed", details },
  });
}

/** A JSON object (not an array, not null). */
export function isObject(value: unknown): value is { [key: string]: Json } {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** pydantic's checks for one string field. */
export function checkString(
  body: { [key: string]: Json },
  name: string,
  max: number,
  details: Detail[],
  loc: (string | number)[],
  options: { optional?: boolean; nullable?: boolean; min?: number } = {},
): void {
  const value = body[name];
  const where = [...loc, name];
  if (value === undefined) {
    if (!options.optional)
      details.push({ type: "missing", loc: where, msg: "Field required", input: body });
    return;
  }
  if (value === null && options.nullable) return;
  if (typeof value !== "string") {
    details.push({
      type: "string_type",
      loc: where,
      msg: "Input should be a valid string",
      input: value,
    });
    return;
  }
  const length = Array.from(value).length;
  const min = options.min ?? 1;
  if (length < min) {
    details.push({
      type: "string_too_short",
      loc: where,
      msg: `String should have at least ${min} character${min === 1 ? "" : "s"}`,
      input: value,
      ctx: { min_length: min },
    });
  } else if (length > max) {
    details.push({
      type: "string_too_long",
      loc: where,
      msg: `String should have at most ${max} characters`,
      input: value,
      ctx: { max_length: max },
    });
  }
}

/** pydantic's checks for required string fields of a body (name, max length): a 422 if any fails. */
export function checkStrings(
  body: { [key: string]: Json },
  fields: ReadonlyArray<readonly [string, number]>,
): void {
  const details: Detail[] = [];
  for (const [name, max] of fields) checkString(body, name, max, details, ["body"]);
  if (details.length > 0) throw validation(details);
}

/** pydantic's checks for one object field. */
function checkObject(
  body: { [key: string]: Json },
  name: string,
  details: Detail[],
  loc: (string | number)[],
  optional: boolean,
): void {
  const value = body[name];
  if (value === undefined) {
    if (!optional)
      details.push({ type: "missing", loc: [...loc, name], msg: "Field required", input: body });
    return;
  }
  if (!isObject(value)) {
    details.push({
      type: "dict_type",
      loc: [...loc, name],
      msg: "Input should be a valid dictionary",
      input: value,
    });
  }
}

/** pydantic's details for one episode of a request body. */
export function episodeDetails(item: unknown, loc: (string | number)[]): Detail[] {
  if (!isObject(item)) {
    return [
      {
        type: "model_attributes_type",
        loc,
        msg: "Input should be a valid dictionary or object to extract fields from",
        input: item,
      },
    ];
  }
  const details: Detail[] = [];
  checkString(item, "subject_id", 256, details, loc);
  checkString(item, "source", 256, details, loc);
  checkString(item, "type", 128, details, loc);
  checkObject(item, "payload", details, loc, false);
  checkObject(item, "metadata", details, loc, true);
  checkObject(item, "provenance", details, loc, true);
  checkString(item, "session_id", 256, details, loc, { optional: true, nullable: true, min: 0 });
  return details;
}

/** An integer query parameter within bounds, as FastAPI checks it. */
export function intQuery(
  url: URL,
  name: string,
  fallback: number,
  bounds: { min?: number; max: number },
): number {
  const raw = url.searchParams.get(name);
  if (raw === null) return fallback;
  const value = Number(raw);
  const refuse = (type: string, msg: string, ctx?: object) =>
    validation([{ type, loc: ["query", name], msg, input: raw, ...(ctx ? { ctx } : {}) }]);
  if (!Number.isInteger(value)) {
    throw refuse(
      "int_parsing",
      "Input should be a valid integer, unable to parse string as an integer",
    );
  }
  if (value > bounds.max) {
    throw refuse("less_than_equal", `Input should be less than or equal to ${bounds.max}`, {
      le: bounds.max,
    });
  }
  if (bounds.min !== undefined && value < bounds.min) {
    throw refuse("greater_than_equal", `Input should be greater than or equal to ${bounds.min}`, {
      ge: bounds.min,
    });
  }
  return value;
}

/** The required `subject_id` query parameter. */
export function requiredSubject(url: URL): string {
  const subjectId = url.searchParams.get("subject_id");
  if (subjectId === null) {
    throw validation([
      { type: "missing", loc: ["query", "subject_id"], msg: "Field required", input: null },
    ]);
  }
  return subjectId;
}

/** A JSON object body, as v0.7.1 reads it (a non-JSON Content-Type: 500). */
export async function readBody(request: Request): Promise<{ [key: string]: Json }> {
  const type = request.headers.get("content-type") ?? "";
  // v0.7.1 validates the raw bytes of a non-JSON body and then fails to encode its own error.
  if (!type.toLowerCase().startsWith("application/json")) throw new Fail(500, internalError());
  const text = await request.text();
  if (text === "")
    throw validation([{ type: "missing", loc: ["body"], msg: "Field required", input: null }]);
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw validation([
      {
        type: "json_invalid",
        loc: ["body", 0],
        msg: "JSON decode error",
        input: {},
        ctx: { error: "Expecting value" },
      },
    ]);
  }
  if (!isObject(body)) {
    throw validation([
      {
        type: "model_attributes_type",
        loc: ["body"],
        msg: "Input should be a valid dictionary or object to extract fields from",
        input: body,
      },
    ]);
  }
  return body;
}

/** The internal-error envelope (its request id is added when it is answered). */
export function internalError() {
  return { error: { code: "internal_error", message: "An unexpected error occurred" } };
}
