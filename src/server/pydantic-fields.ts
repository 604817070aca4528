import { z } from "zod";
import { codePointLength } from "../context/validate-input.js";
import type { ValidationDetail } from "./http-error.js";

/**
 * Every field starts from `z.unknown().optional()`: zod 4 reports an absent key as
 * "expected nonoptional" before a plain transform runs, and we want to say `missing` ourselves.
 *
 * zod field types that fail the way pydantic v2 fails, so our 422 `details` read like Statewave's
 * (contract §3: `{type, loc, msg, input, ctx?}`). Each problem is a zod `custom` issue whose `params`
 * carry pydantic's `type` and `ctx`; `toValidationDetails` turns issues into `details`.
 *
 * Lengths count code points, as Python's `len` does, not UTF-16 units.
 */

interface PydanticParams {
  type: string;
  ctx?: Record<string, unknown>;
}

type IssueContext = z.RefinementCtx;

function fail(ctx: IssueContext, type: string, message: string, extra?: Record<string, unknown>) {
  const params: PydanticParams = extra ? { type, ctx: extra } : { type };
  ctx.addIssue({ code: "custom", message, params });
  return z.NEVER;
}

function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? "" : "s"}`;
}

const loneSurrogate = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

interface StringRules {
  min?: number;
  max: number;
}

function checkString(value: unknown, rules: StringRules, ctx: IssueContext): string {
  if (typeof value !== "string") return fail(ctx, "string_type", "Input should be a valid string");
  // A lone surrogate cannot be stored as UTF-8 text; Statewave answers it with a 500 (contract §5.1).
  if (loneSurrogate.test(value)) {
    return fail(
      ctx,
      "string_unicode",
      "Input should be a valid string, unable to parse raw data as a unicode string",
    );
  }
  const length = codePointLength(value);
  if (rules.min !== undefined && length < rules.min) {
    return fail(
      ctx,
      "string_too_short",
      `String should have at least ${plural(rules.min, "character")}`,
      { min_length: rules.min },
    );
  }
  if (length > rules.max) {
    return fail(
      ctx,
      "string_too_long",
      `String should have at most ${plural(rules.max, "character")}`,
      { max_length: rules.max },
    );
  }
  return value;
}

/** A required `str` with `min_length`/`max_length`. */
export function requiredString(rules: StringRules) {
  return z
    .unknown()
    .optional()
    .transform((value, ctx): string => {
      if (value === undefined) return fail(ctx, "missing", "Field required");
      return checkString(value, rules, ctx);
    });
}

/** An optional `str | None` with `max_length`; absent and `null` both give `null`. */
export function optionalNullableString(rules: StringRules) {
  return z
    .unknown()
    .optional()
    .transform((value, ctx): string | null => {
      if (value === undefined || value === null) return null;
      return checkString(value, rules, ctx);
    });
}

/** A JSON object (`dict`), passed through untouched. `required: false` defaults to `{}`; `null` is refused. */
export function jsonObjectField(options: { required: boolean }) {
  return z
    .unknown()
    .optional()
    .transform((value, ctx): Record<string, unknown> => {
      if (value === undefined) {
        if (options.required) return fail(ctx, "missing", "Field required");
        return {};
      }
      if (typeof value !== "object" || value === null || Array.isArray(value)) {
        return fail(ctx, "dict_type", "Input should be a valid dictionary");
      }
      return value as Record<string, unknown>;
    });
}

interface IntRules {
  ge?: number;
  le?: number;
}

function checkBounds(value: number, rules: IntRules, ctx: IssueContext): number {
  if (rules.ge !== undefined && value < rules.ge) {
    return fail(ctx, "greater_than_equal", `Input should be greater than or equal to ${rules.ge}`, {
      ge: rules.ge,
    });
  }
  if (rules.le !== undefined && value > rules.le) {
    return fail(ctx, "less_than_equal", `Input should be less than or equal to ${rules.le}`, {
      le: rules.le,
    });
  }
  return value;
}

function parseLaxInt(value: unknown, ctx: IssueContext): number {
  if (typeof value === "number") {
    if (!Number.isFinite(value))
      return fail(ctx, "finite_number", "Input should be a finite number");
    if (!Number.isInteger(value)) {
      return fail(
        ctx,
        "int_from_float",
        "Input should be a valid integer, got a number with a fractional part",
      );
    }
    return value;
  }
  if (typeof value === "string") {
    const trimmed = value.trim();
    if (/^[+-]?\d+$/.test(trimmed)) return Number(trimmed);
    return fail(
      ctx,
      "int_parsing",
      "Input should be a valid integer, unable to parse string as an integer",
    );
  }
  return fail(ctx, "int_type", "Input should be a valid integer");
}

/** An `int` in pydantic's lax mode (`"50"` and `50.0` are 50) with bounds; absent gives `fallback`. */
export function laxInt<T extends number | null>(rules: IntRules, fallback: T) {
  return z
    .unknown()
    .optional()
    .transform((value, ctx): number | T => {
      if (value === undefined || (value === null && fallback === null)) return fallback;
      return checkBounds(parseLaxInt(value, ctx), rules, ctx);
    });
}

const truthy = new Set(["1", "on", "t", "true", "y", "yes"]);
const falsy = new Set(["0", "off", "f", "false", "n", "no"]);

/** A `bool` in pydantic's lax mode (`"yes"`, `1`, `"off"` …); absent gives `fallback`. */
export function laxBool(fallback: boolean) {
  return z
    .unknown()
    .optional()
    .transform((value, ctx): boolean => {
      if (value === undefined) return fallback;
      if (typeof value === "boolean") return value;
      if (value === 0 || value === 1) return value === 1;
      if (typeof value === "string") {
        const lowered = value.trim().toLowerCase();
        if (truthy.has(lowered)) return true;
        if (falsy.has(lowered)) return false;
        return fail(
          ctx,
          "bool_parsing",
          "Input should be a valid boolean, unable to interpret input",
        );
      }
      return fail(ctx, "bool_type", "Input should be a valid boolean");
    });
}

/** A required `list` of `min..max` items, each checked by `item`. */
export function boundedList<T>(item: z.ZodType<T>, rules: { min: number; max: number }) {
  return z
    .unknown()
    .optional()
    .transform((value, ctx): unknown[] => {
      if (value === undefined) return fail(ctx, "missing", "Field required");
      if (!Array.isArray(value)) return fail(ctx, "list_type", "Input should be a valid list");
      const actual = value.length;
      if (actual < rules.min) {
        return fail(
          ctx,
          "too_short",
          `List should have at least ${plural(rules.min, "item")} after validation, not ${actual}`,
          { field_type: "List", min_length: rules.min, actual_length: actual },
        );
      }
      if (actual > rules.max) {
        return fail(
          ctx,
          "too_long",
          `List should have at most ${plural(rules.max, "item")} after validation, not ${actual}`,
          { field_type: "List", max_length: rules.max, actual_length: actual },
        );
      }
      return value;
    })
    .pipe(z.array(item));
}

function isPydanticParams(value: unknown): value is PydanticParams {
  return typeof value === "object" && value !== null && "type" in value;
}

function valueAt(root: unknown, path: readonly PropertyKey[]): unknown {
  let current = root;
  for (const key of path) {
    if (typeof current !== "object" || current === null) return undefined;
    // Own members only: a missing key must not find `Object.prototype`'s.
    if (!Object.hasOwn(current, key)) return undefined;
    current = (current as Record<PropertyKey, unknown>)[key];
  }
  return current;
}

/**
 * zod issues -> pydantic `details`. `where` is the first `loc` element (`body` or `query`);
 * `input` is the offending value, or for a missing field the object it is missing from (as pydantic does).
 */
export function toValidationDetails(
  issues: readonly z.core.$ZodIssue[],
  where: "body" | "query" | "path",
  root: unknown,
): ValidationDetail[] {
  return issues.map((issue) => {
    const path = issue.path.filter(
      (key): key is string | number => typeof key === "string" || typeof key === "number",
    );
    const params = issue.code === "custom" ? issue.params : undefined;
    const type = isPydanticParams(params) ? params.type : issue.code;
    // pydantic echoes the object a body field is missing from; FastAPI reports a missing query parameter as null.
    const input =
      type === "missing"
        ? where !== "body"
          ? null
          : valueAt(root, path.slice(0, -1))
        : valueAt(root, path);
    const detail: ValidationDetail = { type, loc: [where, ...path], msg: issue.message, input };
    if (isPydanticParams(params) && params.ctx) detail.ctx = params.ctx;
    return detail;
  });
}
