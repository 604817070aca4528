import type { z } from "zod";

/**
 * zod's own messages read "Too small: expected number to be >0" or "Invalid input: expected int,
 * received number". Error lines say "<field>: expected <what>", so this turns each issue into the
 * "<what>" part in plain words: "a number > 0", "a non-empty string", "an integer, received 1.5".
 */

/** The types zod names in `invalid_type`, with their article. */
const typeNames: Readonly<Record<string, string>> = {
  int: "an integer",
  number: "a number",
  string: "a string",
  boolean: "a boolean (true or false)",
  object: "an object",
  array: "a list",
  record: "an object",
  bigint: "an integer",
  date: "a date",
  null: "null",
  undefined: "nothing",
};

/** What `origin` (the checked value's kind) is called in size messages. */
const originNames: Readonly<Record<string, string>> = {
  number: "a number",
  int: "an integer",
  bigint: "an integer",
  date: "a date",
};

/** What the file held instead, short: a primitive as written, a container by its kind. */
function received(input: unknown): string {
  if (input === null) return "null";
  if (Array.isArray(input)) return "a list";
  if (typeof input === "object") return "an object";
  if (typeof input === "string") {
    return JSON.stringify(input.length > 40 ? `${input.slice(0, 40)}…` : input);
  }
  return String(input);
}

/** ", received X", or nothing when zod did not report the input (a missing field is handled apart). */
function receivedSuffix(issue: z.core.$ZodIssue): string {
  return "input" in issue && issue.input !== undefined ? `, received ${received(issue.input)}` : "";
}

/** "5 items", "1 character". */
function count(amount: number | bigint, unit: string): string {
  return `${amount} ${unit}${amount === 1 || amount === 1n ? "" : "s"}`;
}

/** Bound of a size check: "> 0", ">= 1", "exactly 3". */
function bound(
  comparison: ">" | "<",
  limit: number | bigint,
  inclusive: boolean | undefined,
): string {
  return `${comparison}${inclusive ? "=" : ""} ${limit}`;
}

function tooSmall(issue: z.core.$ZodIssueTooSmall): string {
  const { origin, minimum, inclusive, exact } = issue;
  const least = inclusive ? minimum : typeof minimum === "bigint" ? minimum + 1n : minimum + 1;
  if (origin === "string") {
    if (exact) return `a string of exactly ${count(minimum, "character")}`;
    return least === 1 || least === 1n
      ? "a non-empty string"
      : `a string of at least ${count(least, "character")}`;
  }
  if (origin === "array" || origin === "set") {
    const noun = origin === "array" ? "list" : "set";
    if (exact) return `a ${noun} of exactly ${count(minimum, "item")}`;
    return `a ${noun} of at least ${count(least, "item")}`;
  }
  return `${originNames[origin] ?? origin} ${bound(">", minimum, inclusive)}`;
}

function tooBig(issue: z.core.$ZodIssueTooBig): string {
  const { origin, maximum, inclusive, exact } = issue;
  const most = inclusive ? maximum : typeof maximum === "bigint" ? maximum - 1n : maximum - 1;
  if (origin === "string") {
    if (exact) return `a string of exactly ${count(maximum, "character")}`;
    return `a string of at most ${count(most, "character")}`;
  }
  if (origin === "array" || origin === "set") {
    const noun = origin === "array" ? "list" : "set";
    if (exact) return `a ${noun} of exactly ${count(maximum, "item")}`;
    return `a ${noun} of at most ${count(most, "item")}`;
  }
  return `${originNames[origin] ?? origin} ${bound("<", maximum, inclusive)}`;
}

/** A message zod wrote itself (as opposed to one the schema gave, which is already plain words). */
function isZodDefault(message: string): boolean {
  return /^(Invalid|Too (small|big)|Unrecognized)\b/.test(message);
}

/**
 * The "what was expected" part of an error line for one zod issue, in plain words:
 * `too_small` -> "a number > 0", `invalid_type` -> "an object (the field is missing)",
 * `invalid_value` -> `one of "planner"|"coder"|"reviewer"`. Messages the schema wrote itself
 * (regex and custom checks: "a module name in kebab-case…") are kept as they are.
 */
export function expectedFromIssue(issue: z.core.$ZodIssue): string {
  switch (issue.code) {
    case "invalid_type": {
      const name = typeNames[issue.expected] ?? issue.expected;
      // zod reports no input for a missing field (its input is undefined).
      return "input" in issue && issue.input !== undefined
        ? `${name}${receivedSuffix(issue)}`
        : `${name} (the field is missing)`;
    }
    case "too_small":
      return `${tooSmall(issue)}${receivedSuffix(issue)}`;
    case "too_big":
      return `${tooBig(issue)}${receivedSuffix(issue)}`;
    case "invalid_value": {
      const values = issue.values.map((value) => JSON.stringify(value) ?? String(value));
      const what = values.length === 1 ? (values[0] ?? "") : `one of ${values.join("|")}`;
      return `${what}${receivedSuffix(issue)}`;
    }
    case "invalid_format":
      if (!isZodDefault(issue.message)) return issue.message;
      return issue.pattern !== undefined
        ? `a string matching ${issue.pattern}${receivedSuffix(issue)}`
        : `a valid ${issue.format}${receivedSuffix(issue)}`;
    case "not_multiple_of":
      return `a multiple of ${issue.divisor}${receivedSuffix(issue)}`;
    case "unrecognized_keys":
      return `no other keys (found ${issue.keys.map((key) => JSON.stringify(key)).join(", ")})`;
    case "invalid_union":
      return isZodDefault(issue.message) ? "one of the allowed forms" : issue.message;
    default:
      // custom checks (superRefine) write their message as the expectation already.
      return issue.message.replace(/^Invalid (input|option|value): expected /i, "");
  }
}
