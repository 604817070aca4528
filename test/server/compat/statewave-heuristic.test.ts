import { describe, expect, it } from "vitest";
import {
  cleanSummary,
  codePoints,
  compileHeuristic,
  estimateTokens,
  extractPayloadText,
  HeuristicCompileError,
  type Json,
  jaccard,
  pythonStr,
  recencyScores,
  relevance,
} from "../../../src/server/compat/statewave-heuristic.js";

describe("pythonStr (Python's str() of a JSON value)", () => {
  it.each<[Json, string]>([
    ["plain", "plain"],
    [null, "None"],
    [true, "True"],
    [false, "False"],
    [42, "42"],
    [-5, "-5"],
    [1.5, "1.5"],
    [1e16, "10000000000000000.0"],
    [1e21, "1e+21"],
    [["a", 1, null], "['a', 1, None]"],
    [{ a: [true], b: { c: "d" } }, "{'a': [True], 'b': {'c': 'd'}}"],
    [["it's"], `["it's"]`],
    [[`it's "x"`], `['it\\'s "x"']`],
    [["back\\slash\nnew\ttab"], "['back\\\\slash\\nnew\\ttab']"],
    [[`say "hi"`], `['say "hi"']`],
  ])("writes %j as %s", (value, expected) => {
    expect(pythonStr(value)).toBe(expected);
  });
});

describe("extractPayloadText", () => {
  it("joins messages as role: content lines, with Python's str of other values", () => {
    expect(
      extractPayloadText({
        messages: [
          { role: "user", content: "hi" },
          { role: "assistant", content: 5 },
          { content: "no role" },
          { role: "tool", content: null },
          { role: "system", content: { a: true } },
        ],
        text: "ignored",
      }),
    ).toBe("user: hi\nassistant: 5\n: no role\ntool: \nsystem: {'a': True}");
  });

  it.each<[{ [key: string]: Json }, string]>([
    [{ text: "the text", content: "ignored" }, "the text"],
    [{ text: null }, "None"],
    [{ text: 7 }, "7"],
    [{ content: "the content" }, "the content"],
    [{ content: [1] }, "[1]"],
    [{ other: "x" }, ""],
    [{ messages: [] }, ""],
  ])("reads %j as %j", (payload, text) => {
    expect(extractPayloadText(payload)).toBe(text);
  });

  it.each<[{ [key: string]: Json }, string]>([
    [{ messages: "hi" }, "messages is not a list"],
    [{ messages: null }, "messages is not a list"],
    [{ messages: [null] }, "a message is not an object"],
    [{ messages: [["user", "hi"]] }, "a message is not an object"],
    [{ messages: ["hi"] }, "a message is not an object"],
  ])("raises for %j", (payload, message) => {
    expect(() => extractPayloadText(payload)).toThrow(HeuristicCompileError);
    expect(() => extractPayloadText(payload)).toThrow(message);
  });

  it("names its error", () => {
    expect(new HeuristicCompileError("x").name).toBe("HeuristicCompileError");
  });
});

describe("codePoints", () => {
  it("keeps a short text and cuts a long one by code points", () => {
    expect(codePoints("abc", 3)).toBe("abc");
    expect(codePoints("abcd", 3)).toBe("abc");
    expect(codePoints("😀😀😀", 2)).toBe("😀😀");
    expect(codePoints("😀a", 2)).toBe("😀a");
  });
});

describe("compileHeuristic", () => {
  it("makes nothing of an episode without text", () => {
    expect(compileHeuristic({ other: 1 })).toEqual([]);
    expect(compileHeuristic({ text: "" })).toEqual([]);
  });

  it("summarises in 500 code points, with a 200-code-point summary", () => {
    const text = "😀".repeat(600);
    expect(compileHeuristic({ text })).toEqual([
      {
        kind: "episode_summary",
        content: "😀".repeat(500),
        summary: "😀".repeat(200),
        confidence: 0.8,
      },
    ]);
  });

  it("finds profile facts pattern by pattern, trimmed of their terminators", () => {
    const text =
      "I live in Paris, France. My name is Ann Lee and I am Bob. I use vim\u3000\n" +
      "I work at Acme\nI'm on the Pro plan... I prefer tea.";
    const facts = compileHeuristic({ text })
      .filter((draft) => draft.kind === "profile_fact")
      .map((draft) => draft.content);
    expect(facts).toEqual([
      "My name is Ann Lee",
      "I am Bob",
      "I work at Acme",
      "I'm on the Pro plan",
      "I live in Paris",
      "I use vim",
      "I prefer tea",
    ]);
  });

  it("gives a fact confidence 0.6 and a summary of 200 code points", () => {
    const place = "x".repeat(250);
    const [, fact] = compileHeuristic({ text: `I live in ${place}` });
    expect(fact).toEqual({
      kind: "profile_fact",
      content: `I live in ${place}`,
      summary: `I live in ${place}`.slice(0, 200),
      confidence: 0.6,
    });
  });

  it("finds the same facts when called again (no state between calls)", () => {
    const payload = { text: "I use vim. I use emacs." };
    const first = compileHeuristic(payload);
    expect(compileHeuristic(payload)).toEqual(first);
    expect(first.map((draft) => draft.content)).toEqual([
      "I use vim. I use emacs.",
      "I use vim",
      "I use emacs",
    ]);
  });
});

describe("scoring helpers", () => {
  it.each([
    ["", "", 1],
    ["a", "", 0],
    ["", "a", 0],
    ["A b", "a B", 1],
    ["a b c", "a b d", 0.5],
    ["a a b", "b", 0.5],
  ])("jaccard(%j, %j) = %d", (a, b, expected) => {
    expect(jaccard(a, b)).toBe(expected);
  });

  it.each([
    ["", 0],
    ["abcd", 1],
    ["abcde", 2],
  ])("estimates %j as %d tokens", (text, tokens) => {
    expect(estimateTokens(text)).toBe(tokens);
  });

  it.each([
    ["user: hi", "hi"],
    ["USER:   hi\nAssistant: yo", "hi → yo"],
    ["user: a\n\nsystem: b\nassistant: c", "a → c"],
    ["user:\nplain", "plain"],
    ["not a user: prefix", "not a user: prefix"],
  ])("cleans %j to %j", (content, cleaned) => {
    expect(cleanSummary(content)).toBe(cleaned);
  });

  it.each([
    ["", "anything", 0],
    ["login jwt", "Add JWT login", 5],
    ["login jwt", "jwt only", 2.5],
    ["Login login", "login", 5],
    ["a b c d", "nothing", 0],
  ])("relevance(%j, %j) = %d", (task, text, expected) => {
    expect(relevance(task, text)).toBe(expected);
  });

  it("scores recency linearly from 0 (oldest) to 5 (newest), all 5 when equal", () => {
    expect(recencyScores([])).toEqual([]);
    expect(recencyScores([7, 7])).toEqual([5, 5]);
    expect(recencyScores([10, 20, 15])).toEqual([0, 5, 2.5]);
  });
});
