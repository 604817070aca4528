import { describe, expect, it } from "vitest";
import { type Bm25Statistics, bm25 } from "../../../src/context/postgres/bm25.js";

function statistics(rows: number, tokens: number, counts: Record<string, number>): Bm25Statistics {
  return { rows, tokens, documentCounts: new Map(Object.entries(counts)) };
}

describe("bm25 (FTS5's formula, computed over the subject)", () => {
  it("scores an empty subject 0, not NaN (no average length to divide by)", () => {
    expect(bm25(["queue"], { queue: 1 }, 1, statistics(0, 0, {}))).toBe(0);
  });

  it("weighs a rare word by IDF and the word count by k1 = 1.2, b = 0.75", () => {
    // 10 memories of 2 words on average, "queue" in 1 of them, twice in this 2-word memory.
    const idf = Math.log((10 - 1 + 0.5) / (1 + 0.5));
    const saturation = (2 * (1.2 + 1)) / (2 + 1.2 * (1 - 0.75 + (0.75 * 2) / 2));
    expect(bm25(["queue"], { queue: 2 }, 2, statistics(10, 20, { queue: 1 }))).toBeCloseTo(
      -idf * saturation,
      12,
    );
  });

  it("floors the IDF of a word in most memories at 1e-6, so it still counts a little", () => {
    // "queue" is in all 3 memories: log(0.5 / 3.5) < 0, floored to 1e-6.
    const score = bm25(["queue"], { queue: 1 }, 1, statistics(3, 3, { queue: 3 }));
    expect(score).toBeLessThan(0);
    expect(score).toBeCloseTo(-1e-6 * ((1 * 2.2) / (1 + 1.2)), 15);
  });
  it("floors an IDF of exactly 0 too (a word in half the memories), as FTS5 does", () => {
    // "queue" is in 1 of 2 memories: log(1.5 / 1.5) = 0, floored to 1e-6.
    const score = bm25(["queue"], { queue: 1 }, 1, statistics(2, 2, { queue: 1 }));
    expect(score).toBeCloseTo(-1e-6 * ((1 * 2.2) / (1 + 1.2)), 15);
    expect(score).toBeLessThan(0);
  });
});
