import { describe, expect, it } from "vitest";
import { editDistance, suggestSimilar } from "../../../src/ui/format/did-you-mean.js";

describe("editDistance", () => {
  it.each([
    ["run", "run", 0],
    ["rnu", "run", 1],
    ["rn", "run", 1],
    ["runs", "run", 1],
    ["tiemline", "timeline", 1],
    ["abc", "xyz", 3],
    ["", "run", 3],
  ])("%s → %s: %i", (a, b, distance) => {
    expect(editDistance(a, b)).toBe(distance);
  });
});

describe("suggestSimilar", () => {
  const commands = ["demo", "run", "runs", "timeline", "watch", "serve", "mcp", "bench"];

  it("names the nearest command for a slip of the fingers", () => {
    expect(suggestSimilar("rnu", commands)).toEqual(["run"]);
    expect(suggestSimilar("tiemline", commands)).toEqual(["timeline"]);
    expect(suggestSimilar("srve", commands)).toEqual(["serve"]);
  });

  it("compares options without their dashes, and counts a prefix", () => {
    expect(suggestSimilar("--mde", ["--mode", "--seed", "--speed"])).toEqual(["--mode"]);
    expect(suggestSimilar("--spee", ["--mode", "--seed", "--speed"])).toEqual(["--speed"]);
  });

  it("names every candidate on a tie, sorted", () => {
    expect(suggestSimilar("--sped", ["--speed", "--seed"])).toEqual(["--seed", "--speed"]);
  });

  it("suggests nothing for a word far from every candidate, or a very short one", () => {
    expect(suggestSimilar("frobnicate", commands)).toEqual([]);
    expect(suggestSimilar("x", commands)).toEqual([]);
    expect(suggestSimilar("--", ["--mode"])).toEqual([]);
  });
});
