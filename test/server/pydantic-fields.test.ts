import { describe, expect, it } from "vitest";
import { z } from "zod";
import {
  boundedList,
  jsonObjectField,
  laxBool,
  laxInt,
  optionalNullableString,
  requiredString,
  toValidationDetails,
} from "../../src/server/pydantic-fields.js";
import { missing, stringTooShort } from "./support/pydantic-errors.js";

/** Validates `{ field: value }` (or `{}` when `value` is undefined) and returns the data or the details. */
function check(field: z.ZodType, input: Record<string, unknown>) {
  const result = z.object({ field }).safeParse(input);
  return result.success
    ? { data: (result.data as { field: unknown }).field }
    : { details: toValidationDetails(result.error.issues, "body", input) };
}

const value = (field: z.ZodType, input: unknown) =>
  check(field, input === undefined ? {} : { field: input });

describe("requiredString", () => {
  const name = requiredString({ min: 1, max: 3 });

  it("says a missing field is required, echoing the object it is missing from", () => {
    expect(check(name, { other: 1 })).toEqual({
      details: [missing(["body", "field"], { other: 1 })],
    });
  });

  it.each([5, null, true, ["a"]])("refuses %j as not a string", (input) => {
    expect(value(name, input)).toEqual({
      details: [
        {
          type: "string_type",
          loc: ["body", "field"],
          msg: "Input should be a valid string",
          input,
        },
      ],
    });
  });

  it.each(["\uD800", "a\uDC00", "\uDBFFz"])("refuses the lone surrogate in %j", (input) => {
    expect(value(name, input)).toEqual({
      details: [
        {
          type: "string_unicode",
          loc: ["body", "field"],
          msg: "Input should be a valid string, unable to parse raw data as a unicode string",
          input,
        },
      ],
    });
  });

  it("counts code points, and accepts both bounds exactly", () => {
    expect(value(name, "a")).toEqual({ data: "a" });
    expect(value(name, "😀😀😀")).toEqual({ data: "😀😀😀" });
    expect(value(requiredString({ max: 1 }), "")).toEqual({ data: "" });
  });

  it.each([
    [
      { min: 1, max: 3 },
      "",
      "string_too_short",
      "String should have at least 1 character",
      { min_length: 1 },
    ],
    [
      { min: 2, max: 3 },
      "a",
      "string_too_short",
      "String should have at least 2 characters",
      { min_length: 2 },
    ],
    [
      { min: 1, max: 3 },
      "abcd",
      "string_too_long",
      "String should have at most 3 characters",
      { max_length: 3 },
    ],
    [
      { max: 1 },
      "😀😀",
      "string_too_long",
      "String should have at most 1 character",
      { max_length: 1 },
    ],
  ])("with %j refuses %j as %s: %s", (rules, input, type, msg, ctx) => {
    expect(value(requiredString(rules), input)).toEqual({
      details: [{ type, loc: ["body", "field"], msg, input, ctx }],
    });
  });
});

describe("optionalNullableString", () => {
  const session = optionalNullableString({ max: 2 });

  it.each([
    [undefined, null],
    [null, null],
    ["ab", "ab"],
  ])("turns %j into %j", (input, expected) => {
    expect(value(session, input)).toEqual({ data: expected });
  });

  it("checks a present value like a required string", () => {
    expect(value(session, 1)).toMatchObject({ details: [{ type: "string_type", input: 1 }] });
    expect(value(session, "abc")).toMatchObject({
      details: [{ type: "string_too_long", ctx: { max_length: 2 } }],
    });
  });
});

describe("jsonObjectField", () => {
  it("requires a required object, defaults an optional one to {}", () => {
    expect(value(jsonObjectField({ required: true }), undefined)).toEqual({
      details: [missing(["body", "field"], {})],
    });
    expect(value(jsonObjectField({ required: false }), undefined)).toEqual({ data: {} });
  });

  it("passes an object through untouched", () => {
    const payload = { nested: { list: [1] } };
    const result = value(jsonObjectField({ required: true }), payload);
    expect(result).toEqual({ data: payload });
  });

  it.each([null, [], "x", 0])("refuses %j as not a dictionary", (input) => {
    expect(value(jsonObjectField({ required: false }), input)).toEqual({
      details: [
        {
          type: "dict_type",
          loc: ["body", "field"],
          msg: "Input should be a valid dictionary",
          input,
        },
      ],
    });
  });
});

describe("laxInt", () => {
  const limit = laxInt({ ge: 1, le: 10 }, 5);

  it.each([
    [undefined, 5],
    [1, 1],
    [10, 10],
    [3.0, 3],
    ["7", 7],
    [" 8 ", 8],
    ["+9", 9],
  ])("reads %j as %j", (input, expected) => {
    expect(value(limit, input)).toEqual({ data: expected });
  });

  it("gives a null fallback for null, and refuses null when the fallback is a number", () => {
    expect(value(laxInt({}, null), null)).toEqual({ data: null });
    expect(value(limit, null)).toEqual({
      details: [
        {
          type: "int_type",
          loc: ["body", "field"],
          msg: "Input should be a valid integer",
          input: null,
        },
      ],
    });
  });

  it("takes any integer without bounds", () => {
    expect(value(laxInt({}, 0), "-12")).toEqual({ data: -12 });
  });

  it.each([
    [Number.POSITIVE_INFINITY, "finite_number", "Input should be a finite number", undefined],
    [
      1.5,
      "int_from_float",
      "Input should be a valid integer, got a number with a fractional part",
      undefined,
    ],
    [
      "1.0",
      "int_parsing",
      "Input should be a valid integer, unable to parse string as an integer",
      undefined,
    ],
    [
      "x1",
      "int_parsing",
      "Input should be a valid integer, unable to parse string as an integer",
      undefined,
    ],
    [
      "1x",
      "int_parsing",
      "Input should be a valid integer, unable to parse string as an integer",
      undefined,
    ],
    [true, "int_type", "Input should be a valid integer", undefined],
    [0, "greater_than_equal", "Input should be greater than or equal to 1", { ge: 1 }],
    ["-1", "greater_than_equal", "Input should be greater than or equal to 1", { ge: 1 }],
    [11, "less_than_equal", "Input should be less than or equal to 10", { le: 10 }],
  ])("refuses %j as %s", (input, type, msg, ctx) => {
    const detail = { type, loc: ["body", "field"], msg, input, ...(ctx ? { ctx } : {}) };
    expect(value(limit, input)).toEqual({ details: [detail] });
  });
});

describe("laxBool", () => {
  it.each<[unknown, boolean, boolean]>([
    [undefined, false, false],
    [undefined, true, true],
    [true, false, true],
    [false, true, false],
    [1, false, true],
    [0, true, false],
    ...["1", "on", "t", "true", "y", "yes", " YES "].map((input): [unknown, boolean, boolean] => [
      input,
      false,
      true,
    ]),
    ...["0", "off", "f", "false", "n", "no", "No"].map((input): [unknown, boolean, boolean] => [
      input,
      true,
      false,
    ]),
  ])("reads %j (fallback %j) as %j", (input, fallback, expected) => {
    expect(value(laxBool(fallback), input)).toEqual({ data: expected });
  });

  it("refuses other strings and other types", () => {
    expect(value(laxBool(false), "maybe")).toEqual({
      details: [
        {
          type: "bool_parsing",
          loc: ["body", "field"],
          msg: "Input should be a valid boolean, unable to interpret input",
          input: "maybe",
        },
      ],
    });
    for (const input of [2, null, {}]) {
      expect(value(laxBool(false), input)).toEqual({
        details: [
          {
            type: "bool_type",
            loc: ["body", "field"],
            msg: "Input should be a valid boolean",
            input,
          },
        ],
      });
    }
  });
});

describe("boundedList", () => {
  const item = z.object({ name: requiredString({ min: 1, max: 5 }) });

  it("requires a list", () => {
    expect(value(boundedList(item, { min: 1, max: 2 }), undefined)).toEqual({
      details: [missing(["body", "field"], {})],
    });
    expect(value(boundedList(item, { min: 1, max: 2 }), { 0: 1 })).toEqual({
      details: [
        {
          type: "list_type",
          loc: ["body", "field"],
          msg: "Input should be a valid list",
          input: { 0: 1 },
        },
      ],
    });
  });

  it.each([
    [
      { min: 1, max: 2 },
      [],
      "too_short",
      "List should have at least 1 item after validation, not 0",
      { field_type: "List", min_length: 1, actual_length: 0 },
    ],
    [
      { min: 2, max: 3 },
      [{ name: "a" }],
      "too_short",
      "List should have at least 2 items after validation, not 1",
      { field_type: "List", min_length: 2, actual_length: 1 },
    ],
    [
      { min: 0, max: 1 },
      [{ name: "a" }, { name: "b" }],
      "too_long",
      "List should have at most 1 item after validation, not 2",
      { field_type: "List", max_length: 1, actual_length: 2 },
    ],
    [
      { min: 0, max: 2 },
      [{ name: "a" }, { name: "b" }, { name: "c" }],
      "too_long",
      "List should have at most 2 items after validation, not 3",
      { field_type: "List", max_length: 2, actual_length: 3 },
    ],
  ])("with %j refuses %j as %s", (rules, input, type, msg, ctx) => {
    expect(value(boundedList(item, rules), input)).toEqual({
      details: [{ type, loc: ["body", "field"], msg, input, ctx }],
    });
  });

  it("accepts both bounds and checks each item where it is", () => {
    const list = boundedList(item, { min: 1, max: 2 });
    expect(value(list, [{ name: "a" }])).toEqual({ data: [{ name: "a" }] });
    expect(value(list, [{ name: "a" }, { name: "b" }])).toEqual({
      data: [{ name: "a" }, { name: "b" }],
    });
    expect(value(list, [{ name: "" }, {}])).toEqual({
      details: [
        stringTooShort(["body", "field", 0, "name"], "", 1),
        missing(["body", "field", 1, "name"], {}),
      ],
    });
  });

  it("reports a non-object item with zod's own code", () => {
    const result = value(boundedList(item, { min: 1, max: 2 }), [5]);
    expect(result).toEqual({
      details: [
        { type: "invalid_type", loc: ["body", "field", 0], msg: expect.any(String), input: 5 },
      ],
    });
  });
});

describe("toValidationDetails", () => {
  const missingIssue = (path: PropertyKey[]) =>
    ({
      code: "custom",
      path,
      message: "Field required",
      params: { type: "missing" },
      input: undefined,
    }) as unknown as z.core.$ZodIssue;

  it.each(["query", "path"] as const)(
    "echoes null for a parameter missing from the %s",
    (where) => {
      expect(toValidationDetails([missingIssue(["subject_id"])], where, { other: "x" })).toEqual([
        missing([where, "subject_id"], null),
      ]);
    },
  );

  it("walks own members only, and stops at a value that is not an object", () => {
    expect(toValidationDetails([missingIssue(["a", "b", "c"])], "body", { a: 5 })).toEqual([
      missing(["body", "a", "b", "c"], undefined),
    ]);
    expect(toValidationDetails([missingIssue(["a", "b", "c"])], "body", { a: null })).toEqual([
      missing(["body", "a", "b", "c"], undefined),
    ]);
    // A string has own indexes ("xyz"[0]), but is no object to walk into.
    expect(toValidationDetails([missingIssue(["a", 0, "x"])], "body", { a: "xyz" })).toEqual([
      missing(["body", "a", 0, "x"], undefined),
    ]);
    expect(toValidationDetails([missingIssue(["toString", "x"])], "body", {})).toEqual([
      missing(["body", "toString", "x"], undefined),
    ]);
  });

  it("leaves symbol keys out of loc, and ctx out when pydantic has none", () => {
    const issue = {
      code: "custom",
      path: ["a", Symbol("hidden")],
      message: "Bad",
      params: { type: "custom_type" },
      input: 1,
    } as unknown as z.core.$ZodIssue;
    expect(toValidationDetails([issue], "body", { a: 1 })).toEqual([
      { type: "custom_type", loc: ["body", "a"], msg: "Bad", input: 1 },
    ]);
  });

  it("uses zod's code for a custom issue without pydantic params", () => {
    const issue = {
      code: "custom",
      path: ["a"],
      message: "Bad",
      params: { other: 1 },
      input: 1,
    } as unknown as z.core.$ZodIssue;
    expect(toValidationDetails([issue], "body", { a: 2 })).toEqual([
      { type: "custom", loc: ["body", "a"], msg: "Bad", input: 2 },
    ]);
  });
});
