import { describe, expect, it } from "vitest";
import { searchTerms, textTerms } from "../../src/context/rank-context.js";

describe("textTerms", () => {
  it.each([
    ["folds accents and case", "Café RÉSUMÉ naïve", ["cafe", "resume", "naive"]],
    [
      "splits on anything not a letter or digit",
      "jwt-auth/v2_login",
      ["jwt", "auth", "v2", "login"],
    ],
    [
      "drops one-letter words and stop words, keeps two-letter ones",
      "a b ui of x db",
      ["ui", "db"],
    ],
    ["keeps letters of any script", "Über straße 東京", ["uber", "straße", "東京"]],
    ["folds accents in text without one ASCII character", "Éé", ["ee"]],
  ])("%s", (_, text, terms) => {
    expect(textTerms(text)).toEqual(terms);
  });
});

describe("searchTerms", () => {
  const words = Array.from({ length: 20 }, (_, index) => `word${index}`);

  it("keeps the first 16 distinct words by default", () => {
    expect(searchTerms(words.join(" "))).toEqual(words.slice(0, 16));
  });

  it.each([
    [3, words.slice(0, 3)],
    [20, words],
    [25, words],
  ])("keeps at most %i words", (max, expected) => {
    expect(searchTerms(words.join(" "), max)).toEqual(expected);
  });
});
