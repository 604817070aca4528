import { describe, expect, it } from "vitest";
import { z } from "zod";
import { expectedFromIssue } from "../../src/scenario/expected-from-issue.js";

/** The one issue `value` raises against `schema`, in words. */
function expectedFor(schema: z.ZodType, value: unknown): string {
  const result = schema.safeParse(value, { reportInput: true });
  if (result.success) throw new Error("expected the value to be refused");
  const [issue] = result.error.issues;
  if (issue === undefined) throw new Error("no issue");
  return expectedFromIssue(issue);
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
});
