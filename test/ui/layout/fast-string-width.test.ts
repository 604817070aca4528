import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";
import fc from "fast-check";
import { eastAsianWidth } from "get-east-asian-width";
import stringWidth8 from "string-width";
import stripAnsi from "strip-ansi";
import { describe, expect, it } from "vitest";
import {
  type FastStringWidthParts,
  fastStringWidth,
  type StringWidth,
} from "../../../src/ui/layout/fast-string-width.js";

// The CLI bundle puts fastStringWidth in front of both string-width copies Ink's packages use:
// string-width 8 (Ink, widest-line, cli-truncate) and wrap-ansi's own string-width 7.
const require = createRequire(import.meta.url);
const wrapAnsiEntry = require.resolve("wrap-ansi");
const stringWidth7Path = createRequire(wrapAnsiEntry).resolve("string-width");
const stringWidth7 = (
  (await import(pathToFileURL(stringWidth7Path).href)) as { default: StringWidth }
).default;

const copies = [
  { name: "string-width 8", full: stringWidth8, lonePictographs: "measure" },
  { name: "string-width 7 (wrap-ansi's)", full: stringWidth7, lonePictographs: "delegate" },
] as const;

/** fastStringWidth over `full`, counting how often it had to load and call it. */
function instrumented(full: StringWidth, lonePictographs: FastStringWidthParts["lonePictographs"]) {
  const calls = { loads: 0, measures: 0 };
  const width = fastStringWidth({
    full: () => {
      calls.loads += 1;
      return (text, options) => {
        calls.measures += 1;
        return full(text, options);
      };
    },
    stripAnsi,
    eastAsianWidth,
    lonePictographs,
  });
  return { width, calls };
}

/**
 * Every BMP character fastStringWidth measures without asking string-width: found by asking, not
 * restated, so a fast path widened to a character that clusters fails the tests below.
 */
const fastPathCharacters = (() => {
  const { width, calls } = instrumented(stringWidth8, "measure");
  const found: string[] = [];
  for (let codePoint = 0; codePoint <= 0xffff; codePoint += 1) {
    const character = String.fromCodePoint(codePoint);
    const before = calls.measures;
    width(character);
    if (calls.measures === before) found.push(character);
  }
  return found;
})();

describe("fastStringWidth", () => {
  it("measures ASCII, Latin, punctuation, arrows, box drawing and Braille itself", () => {
    expect(fastPathCharacters.length).toBeGreaterThan(3000);
    for (const character of "aZ~é·×–—…→↓≥─╭▏⠋✔✖❯€") expect(fastPathCharacters).toContain(character);
  });

  it("contains a shipped version of both copies (so the bundle's rules are the tested ones)", () => {
    expect(stringWidth7Path).toMatch(/wrap-ansi[/\\]node_modules[/\\]string-width/);
    expect(stringWidth8("⌚")).toBe(2);
    expect(stringWidth7("©")).toBe(2);
  });

  it("keeps every fast-path character a grapheme cluster of its own, whatever stands beside it", () => {
    const segmenter = new Intl.Segmenter();
    const clustered = fastPathCharacters.filter((character) =>
      [`a${character}`, `${character}a`, `${character}${character}`].some(
        (pair) => [...segmenter.segment(pair)].length !== 2,
      ),
    );
    expect(clustered).toEqual([]);
  });

  for (const copy of copies) {
    describe(copy.name, () => {
      it("gives the copy's width for every fast-path character, narrow and wide ambiguous", () => {
        const { width } = instrumented(copy.full, copy.lonePictographs);
        const differing = fastPathCharacters.flatMap((character) =>
          [true, false]
            .filter(
              (ambiguousIsNarrow) =>
                width(character, { ambiguousIsNarrow }) !==
                copy.full(character, { ambiguousIsNarrow }),
            )
            .map(
              (ambiguousIsNarrow) =>
                `U+${character.codePointAt(0)?.toString(16)} ${ambiguousIsNarrow}`,
            ),
        );
        expect(differing).toEqual([]);
      });

      it("gives the copy's width for any string, styled or not", () => {
        const { width } = instrumented(copy.full, copy.lonePictographs);
        const piece = fc.oneof(
          fc.constantFrom(...fastPathCharacters),
          fc.constantFrom("\u001b[31m", "\u001b[39m", "\u001b[1m", "\u009b2m", "\u001b]8;;x\u0007"),
          fc.constantFrom("e\u0301", "👍🏽", "🇫🇷", "한", "\u200d", "\u0007", "\ufe0f", "中", "⌚"),
          fc.string(),
        );
        fc.assert(
          fc.property(
            fc.array(piece, { maxLength: 12 }),
            fc.boolean(),
            fc.boolean(),
            (pieces, ambiguousIsNarrow, countAnsiEscapeCodes) => {
              const text = pieces.join("");
              const options = { ambiguousIsNarrow, countAnsiEscapeCodes };
              expect(width(text, options)).toBe(copy.full(text, options));
            },
          ),
        );
      });
    });
  }

  it("measures the demo's own text without loading string-width", () => {
    const { width, calls } = instrumented(stringWidth8, "measure");
    const drawn = [
      "shared-ctx demo · late-decision",
      "\u001b[32m✔\u001b[39m Coder claimed auth → done — 3 × 2",
      "⠋ reviewing … ≥ 2 │ ─── ╭╮╰╯ ▏",
      "naïve café: €12",
    ];
    expect(drawn.map((text) => width(text))).toEqual(drawn.map((text) => stringWidth8(text)));
    expect(calls).toEqual({ loads: 0, measures: 0 });
  });

  it("loads the copy once, on the first text outside the fast path, and asks it from then on", () => {
    const { width, calls } = instrumented(stringWidth8, "measure");
    expect(width("中文")).toBe(4);
    expect(width("👍🏽 ok")).toBe(5);
    expect(width("e\u0301")).toBe(1);
    expect(calls).toEqual({ loads: 1, measures: 3 });
  });

  it("hands string-width 7 a lone pictograph, which it counts as two columns", () => {
    const { width, calls } = instrumented(stringWidth7, "delegate");
    expect(width("© ✔")).toBe(stringWidth7("© ✔"));
    expect(calls.measures).toBe(1);
    const eight = instrumented(stringWidth8, "measure");
    expect(eight.width("© ✔")).toBe(3);
    expect(eight.calls.measures).toBe(0);
  });

  it("is zero for an empty string and for what is not a string", () => {
    const { width, calls } = instrumented(stringWidth8, "measure");
    expect(width("")).toBe(0);
    expect(width(undefined as unknown as string)).toBe(0);
    expect(width("\u001b[31m\u001b[39m")).toBe(0);
    expect(calls.loads).toBe(0);
  });
});
