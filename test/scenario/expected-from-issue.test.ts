import { describe, expect, it } from "vitest";
import { z } from "zod";
import { expectedFromIssue } from "../../src/scenario/expected-from-issue.js";

/**
 * The wording of every branch of expectedFromIssue: the sizes zod reports for strings, lists and
 * sets (exact, at least, at most), bounds zod never produces itself but the type allows (exclusive
 * string and list sizes, bigint sizes), what the file held instead, and messages kept or reworded.
 */

/** The one issue `value` raises against `schema`, in words. */
function expectedFor(schema: z.ZodType, value: unknown): string {
  const result = schema.safeParse(value, { reportInput: true });
  if (result.success) throw new Error("expected the value to be refused");
  const [issue] = result.error.issues;
  if (issue === undefined) throw new Error("no issue");
  return expectedFromIssue(issue);
}

/** What every hand-made issue carries besides its own fields. */
const base: { path: PropertyKey[]; message: string } = { path: [], message: "Too small" };

/** The words for a hand-made too_small issue with `fields`: sizes zod never reports itself. */
function tooSmall(fields: Omit<z.core.$ZodIssueTooSmall, "code" | keyof typeof base>): string {
  return expectedFromIssue({ ...base, code: "too_small", ...fields });
}

/** The words for a hand-made too_big issue with `fields`. */
function tooBig(fields: Omit<z.core.$ZodIssueTooBig, "code" | keyof typeof base>): string {
  return expectedFromIssue({ ...base, message: "Too big", code: "too_big", ...fields });
}

describe("expectedFromIssue", () => {
  it.each([
    ["a positive number", z.number().positive(), 0, "a number > 0, received 0"],
    ["a non-negative integer", z.number().int().nonnegative(), -1, "a number >= 0, received -1"],
    ["a maximum", z.number().max(5), 9, "a number <= 5, received 9"],
    ["a strict maximum", z.number().lt(5), 5, "a number < 5, received 5"],
    ["a non-empty string", z.string().min(1), "", 'a non-empty string, received ""'],
    [
      "a long enough string",
      z.string().min(3),
      "ab",
      'a string of at least 3 characters, received "ab"',
    ],
    [
      "a short enough string",
      z.string().max(3),
      "abcd",
      'a string of at most 3 characters, received "abcd"',
    ],
    [
      "a non-empty list",
      z.array(z.string()).min(1),
      [],
      "a list of at least 1 item, received a list",
    ],
    ["an integer", z.number().int(), 1.5, "an integer, received 1.5"],
    ["a number, not a string", z.number(), "5", 'a number, received "5"'],
    ["an object, not a list", z.object({}), [], "an object, received a list"],
    [
      "a missing field",
      z.object({ timings: z.object({}) }),
      {},
      "an object (the field is missing)",
    ],
    [
      "an enum",
      z.enum(["planner", "coder"]),
      "planer",
      'one of "planner"|"coder", received "planer"',
    ],
    ["a literal", z.literal("k"), "q", '"k", received "q"'],
    ["a default regex", z.string().regex(/^a$/), "b", 'a string matching /^a$/, received "b"'],
    ["a multiple", z.number().multipleOf(5), 7, "a multiple of 5, received 7"],
  ])("words %s plainly", (_label, schema, value, expected) => {
    const text = expectedFor(schema, value);
    expect(text).toBe(expected);
    expect(text).not.toMatch(/Too (small|big)|Invalid/);
  });

  it("keeps the schema's own words for regex and custom checks", () => {
    expect(expectedFor(z.string().regex(/^[a-z]+$/, "a name in lower case"), "A")).toBe(
      "a name in lower case",
    );
    const custom = z.number().refine((value) => value % 2 === 0, "an even number");
    expect(expectedFor(custom, 3)).toBe("an even number");
  });

  it("lists unknown keys of a strict object", () => {
    expect(expectedFor(z.strictObject({ a: z.number() }), { a: 1, b: 2 })).toBe(
      'no other keys (found "b")',
    );
  });

  describe("what the file held instead", () => {
    it.each([
      ["null", z.number(), null, "a number, received null"],
      ["an object", z.number(), { a: 1 }, "a number, received an object"],
      ["a list", z.number(), [1], "a number, received a list"],
      ["a boolean", z.number(), true, "a number, received true"],
      [
        "a string of 40 characters in full",
        z.number(),
        "a".repeat(40),
        `a number, received "${"a".repeat(40)}"`,
      ],
      [
        "a longer string cut at 40 characters",
        z.number(),
        `${"b".repeat(40)}tail`,
        `a number, received "${"b".repeat(40)}…"`,
      ],
    ])("%s", (_label, schema, value, expected) => {
      expect(expectedFor(schema, value)).toBe(expected);
    });

    it("says nothing of the input when zod did not report it", () => {
      const result = z.number().positive().safeParse(0);
      const [issue] = result.error?.issues ?? [];
      expect(issue).toBeDefined();
      if (issue !== undefined) expect(expectedFromIssue(issue)).toBe("a number > 0");
    });

    it("says nothing of an input reported as undefined", () => {
      expect(tooSmall({ origin: "number", minimum: 0, inclusive: false, input: undefined })).toBe(
        "a number > 0",
      );
    });
  });

  describe("sizes zod reports", () => {
    it.each([
      [
        "a string of exact length, too short",
        z.string().length(3),
        "ab",
        'a string of exactly 3 characters, received "ab"',
      ],
      [
        "a string of exact length, too long",
        z.string().length(3),
        "abcd",
        'a string of exactly 3 characters, received "abcd"',
      ],
      [
        "a string of one character exactly",
        z.string().length(1),
        "",
        'a string of exactly 1 character, received ""',
      ],
      [
        "a list of exact length, too short",
        z.array(z.number()).length(2),
        [1],
        "a list of exactly 2 items, received a list",
      ],
      [
        "a list of exact length, too long",
        z.array(z.number()).length(2),
        [1, 2, 3],
        "a list of exactly 2 items, received a list",
      ],
      [
        "a list of one item exactly",
        z.array(z.number()).length(1),
        [],
        "a list of exactly 1 item, received a list",
      ],
      [
        "a list of at least 2 items",
        z.array(z.number()).min(2),
        [1],
        "a list of at least 2 items, received a list",
      ],
      [
        "a list of at most 2 items",
        z.array(z.number()).max(2),
        [1, 2, 3],
        "a list of at most 2 items, received a list",
      ],
      [
        "a list of at most 1 item",
        z.array(z.number()).max(1),
        [1, 2],
        "a list of at most 1 item, received a list",
      ],
      [
        "a set of at least 2 items",
        z.set(z.number()).min(2),
        new Set([1]),
        "a set of at least 2 items, received an object",
      ],
      [
        "a set of at most 1 item",
        z.set(z.number()).max(1),
        new Set([1, 2]),
        "a set of at most 1 item, received an object",
      ],
      [
        "a string of at most 1 character",
        z.string().max(1),
        "ab",
        'a string of at most 1 character, received "ab"',
      ],
      ["a number at least 2", z.number().min(2), 1, "a number >= 2, received 1"],
      ["an integer of bigint kind", z.bigint().min(2n), 1n, "an integer >= 2, received 1"],
    ])("%s", (_label, schema, value, expected) => {
      expect(expectedFor(schema, value)).toBe(expected);
    });
  });

  describe("exclusive and bigint sizes (allowed by the issue's type)", () => {
    it.each([
      ["a string above 0 characters", "string", 0, "a non-empty string"],
      ["a string above 2 characters", "string", 2, "a string of at least 3 characters"],
      ["a string above 0n characters", "string", 0n, "a non-empty string"],
      ["a string above 2n characters", "string", 2n, "a string of at least 3 characters"],
      ["a list above 0 items", "array", 0, "a list of at least 1 item"],
      ["a list above 1n items", "array", 1n, "a list of at least 2 items"],
      ["a set above 0n items", "set", 0n, "a set of at least 1 item"],
      ["an unnamed origin", "file", 3, "file > 3"],
    ] as const)("too small: %s", (_label, origin, minimum, expected) => {
      expect(tooSmall({ origin, minimum, inclusive: false })).toBe(expected);
    });

    it.each([
      ["a string of 1n character inclusive", "string", 1n, true, "a non-empty string"],
      ["a list of 1n item inclusive", "array", 1n, true, "a list of at least 1 item"],
      [
        "a string of exactly 1n character",
        "string",
        1n,
        undefined,
        "a string of exactly 1 character",
      ],
    ] as const)("too small: %s", (_label, origin, minimum, inclusive, expected) => {
      expect(tooSmall({ origin, minimum, inclusive, exact: inclusive === undefined })).toBe(
        expected,
      );
    });

    it.each([
      ["a string below 4 characters", "string", 4, "a string of at most 3 characters"],
      ["a string below 4n characters", "string", 4n, "a string of at most 3 characters"],
      ["a string below 2n characters", "string", 2n, "a string of at most 1 character"],
      ["a list below 3 items", "array", 3, "a list of at most 2 items"],
      ["a list below 3n items", "array", 3n, "a list of at most 2 items"],
      ["a set below 2 items", "set", 2, "a set of at most 1 item"],
      ["a number below 5", "number", 5, "a number < 5"],
    ] as const)("too big: %s", (_label, origin, maximum, expected) => {
      expect(tooBig({ origin, maximum, inclusive: false })).toBe(expected);
    });

    it.each([
      ["a list", "array", "a list of exactly 2 items"],
      ["a set", "set", "a set of exactly 2 items"],
      ["a string", "string", "a string of exactly 2 characters"],
    ] as const)("too big, exact: %s", (_label, origin, expected) => {
      expect(tooBig({ origin, maximum: 2, inclusive: true, exact: true })).toBe(expected);
    });

    it("too small, exact: a set", () => {
      expect(tooSmall({ origin: "set", minimum: 2, inclusive: true, exact: true })).toBe(
        "a set of exactly 2 items",
      );
    });
  });

  describe("formats", () => {
    it("words a format without a pattern by its name", () => {
      expect(
        expectedFromIssue({
          code: "invalid_format",
          format: "date",
          path: [],
          message: "Invalid date",
          input: "tomorrow",
        }),
      ).toBe('a valid date, received "tomorrow"');
    });

    it("keeps a schema's message that only mentions zod's words later on", () => {
      expect(expectedFor(z.string().regex(/^a$/, "the letter a (Invalid otherwise)"), "b")).toBe(
        "the letter a (Invalid otherwise)",
      );
    });

    it("takes a message opening with zod's words for zod's own", () => {
      expect(
        expectedFromIssue({
          code: "invalid_format",
          format: "regex",
          pattern: "/^a$/",
          path: [],
          message: "Invalid string: must match pattern /^a$/",
          input: "b",
        }),
      ).toBe('a string matching /^a$/, received "b"');
    });
  });

  describe("unions", () => {
    it("words zod's own union message plainly", () => {
      expect(expectedFor(z.union([z.string(), z.number()]), true)).toBe("one of the allowed forms");
    });

    it("keeps a union's own message", () => {
      expect(
        expectedFor(z.union([z.string(), z.number()], { error: "a name or a number" }), true),
      ).toBe("a name or a number");
    });
  });

  describe("unknown keys", () => {
    it("lists every unknown key, comma-separated", () => {
      expect(expectedFor(z.strictObject({ a: z.number() }), { a: 1, b: 2, c: 3 })).toBe(
        'no other keys (found "b", "c")',
      );
    });
  });

  describe("custom checks", () => {
    it.each([
      [
        "drops zod's opening from a custom message",
        "Invalid input: expected an even number",
        "an even number",
      ],
      ["drops it in any case", "invalid value: expected a name", "a name"],
      [
        "keeps the words when zod's opening is not at the start",
        "Note: Invalid input: expected x",
        "Note: Invalid input: expected x",
      ],
      ["keeps a plain message", "an even number", "an even number"],
    ])("%s", (_label, message, expected) => {
      expect(expectedFromIssue({ code: "custom", path: [], message, input: 3 })).toBe(expected);
    });
  });
});
