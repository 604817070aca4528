import { describe, expect, it } from "vitest";
import { StoreValidationError } from "../../src/context/errors/store-validation-error.js";
import {
  codePointLength,
  hasUnstorableText,
  inputLimits,
  requireInteger,
  requireSearchText,
  requireTenantId,
  requireText,
  validateEpisodeBatch,
  validateEpisodeInput,
  validateSearchOptions,
} from "../../src/context/validate-input.js";

const episode = { subjectId: "demo", source: "planner", type: "decision", payload: { text: "x" } };

/** The field and expectation a validation error names, or the error itself when it is another. */
function refusal(act: () => unknown): { field: string; expected: string } | unknown {
  try {
    act();
  } catch (error) {
    if (error instanceof StoreValidationError) {
      expect(error.message).toBe(`Invalid ${error.field}: expected ${error.expected}`);
      return { field: error.field, expected: error.expected };
    }
    return error;
  }
  return "accepted";
}

describe("codePointLength", () => {
  it.each([
    ["", 0],
    ["abc", 3],
    ["a😀b", 3],
    ["😀😀", 2],
  ])("counts %j as %i characters, as Statewave does", (text, length) => {
    expect(codePointLength(text)).toBe(length);
  });
});

describe("requireText", () => {
  it("takes a string of exactly the limit, counted in code points", () => {
    expect(requireText("source", "😀".repeat(4), 4)).toBe("😀😀😀😀");
    expect(requireText("source", "abcd", 4)).toBe("abcd");
  });

  it.each([["abcde"], ["😀".repeat(5)], [""], [7]])("refuses %j, naming the limit", (value) => {
    expect(refusal(() => requireText("source", value, 4))).toEqual({
      field: "source",
      expected: "a string of 1..4 characters",
    });
  });
});

describe("requireInteger", () => {
  it("refuses what is out of range, naming the range", () => {
    expect(refusal(() => requireInteger("limit", 0, 1, 100, 10))).toEqual({
      field: "limit",
      expected: "an integer in 1..100",
    });
  });
});

describe("validateEpisodeInput", () => {
  it("fills the defaults of a minimal episode", () => {
    expect(validateEpisodeInput(episode)).toEqual({
      ...episode,
      metadata: {},
      provenance: {},
      sessionId: null,
      idempotencyKey: null,
    });
  });

  it.each([
    ["not an object", "episode", "", { field: "input", expected: "an object" }],
    [
      "not an object, in a batch",
      null,
      "episodes[2].",
      { field: "episodes[2]", expected: "an object" },
    ],
    [
      "a source too long",
      { ...episode, source: "s".repeat(inputLimits.source + 1) },
      "",
      { field: "source", expected: `a string of 1..${inputLimits.source} characters` },
    ],
    [
      "a payload that is text",
      { ...episode, payload: "text" },
      "",
      { field: "payload", expected: "a JSON object" },
    ],
    [
      "provenance that is a list",
      { ...episode, provenance: [] },
      "episodes[4].",
      { field: "episodes[4].provenance", expected: "a JSON object" },
    ],
    [
      "no payload",
      { ...episode, payload: undefined },
      "",
      { field: "payload", expected: "a JSON object" },
    ],
    [
      "a session id that is a number",
      { ...episode, sessionId: 5 },
      "episodes[0].",
      {
        field: "episodes[0].sessionId",
        expected: `null or a string of at most ${inputLimits.sessionId} characters without U+0000 or unpaired surrogates`,
      },
    ],
    [
      "a session id one character too long",
      { ...episode, sessionId: "s".repeat(inputLimits.sessionId + 1) },
      "",
      {
        field: "sessionId",
        expected: `null or a string of at most ${inputLimits.sessionId} characters without U+0000 or unpaired surrogates`,
      },
    ],
  ])("refuses %s, naming the field", (_, input, prefix, expected) => {
    expect(refusal(() => validateEpisodeInput(input, prefix))).toEqual(expected);
  });

  it("takes a session id of exactly the limit", () => {
    const sessionId = "😀".repeat(inputLimits.sessionId);
    expect(validateEpisodeInput({ ...episode, sessionId }).sessionId).toBe(sessionId);
  });
});

describe("validateEpisodeBatch", () => {
  const batchRule = { field: "episodes", expected: `an array of 1..${inputLimits.batch} episodes` };

  it("takes one episode, and the limit", () => {
    expect(validateEpisodeBatch([episode])).toHaveLength(1);
    expect(validateEpisodeBatch(Array(inputLimits.batch).fill(episode))).toHaveLength(
      inputLimits.batch,
    );
  });

  it.each([[[]], [Array(inputLimits.batch + 1).fill(episode)], [episode]])(
    "refuses a batch that is empty, over the limit or not an array",
    (batch) => {
      expect(refusal(() => validateEpisodeBatch(batch))).toEqual(batchRule);
    },
  );

  it("names the item that is wrong by its index", () => {
    expect(refusal(() => validateEpisodeBatch([episode, { ...episode, type: "" }]))).toEqual({
      field: "episodes[1].type",
      expected: `a string of 1..${inputLimits.type} characters`,
    });
  });
});

describe("the id rule (requireId, requireTenantId)", () => {
  const rule = (max: number) =>
    `a string of 1..${max} characters without U+0000 or unpaired surrogates`;

  it.each([
    ["U+0000 in a subject id", { ...episode, subjectId: "a\u0000b" }, "subjectId", rule(256)],
    ["a lone high surrogate in a source", { ...episode, source: "a\ud800" }, "source", rule(256)],
    ["a lone low surrogate in a type", { ...episode, type: "\udc00" }, "type", rule(128)],
    [
      "U+0000 in an idempotency key",
      { ...episode, idempotencyKey: "\u0000" },
      "idempotencyKey",
      rule(256),
    ],
    [
      "an empty idempotency key",
      { ...episode, idempotencyKey: "" },
      "idempotencyKey",
      "a string of 1..256 characters",
    ],
  ])("refuses %s on every store", (_, input, field, expected) => {
    expect(refusal(() => validateEpisodeInput(input))).toEqual({ field, expected });
  });

  it("keeps every other character, a paired surrogate and control characters included", () => {
    const subjectId = "line\nbreak\u0001 😀";
    expect(validateEpisodeInput({ ...episode, subjectId, idempotencyKey: "k" })).toMatchObject({
      subjectId,
      idempotencyKey: "k",
    });
    expect(hasUnstorableText(subjectId)).toBe(false);
  });

  it("takes null, an empty tenant and 256 characters; refuses 257, U+0000 and a number", () => {
    expect(requireTenantId(null)).toBeNull();
    expect(requireTenantId("")).toBe("");
    expect(requireTenantId("t".repeat(256))).toBe("t".repeat(256));
    for (const bad of ["t".repeat(257), "t".repeat(5000), "a\u0000", 5]) {
      expect(() => requireTenantId(bad)).toThrow(StoreValidationError);
    }
  });

  it("reads search options alike: empty means no filter, U+0000 is refused", () => {
    expect(validateSearchOptions({ kind: "", q: "" })).toEqual({
      limit: 20,
      kind: undefined,
      q: undefined,
    });
    expect(validateSearchOptions({ kind: "k".repeat(500), limit: 3 })).toMatchObject({
      kind: "k".repeat(500),
      limit: 3,
    });
    expect(() => validateSearchOptions({ q: "a\u0000" })).toThrow(StoreValidationError);
    expect(() => requireSearchText("task", "x\ud800", 4000)).toThrow(StoreValidationError);
  });
});
