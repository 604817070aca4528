import cliTruncate from "cli-truncate";
import stringWidth from "string-width";
import { describe, expect, it } from "vitest";
import {
  fitTail,
  fitWidth,
  stripAnsi,
  textWidth,
  truncate,
  wrapText,
} from "../../../src/ui/format/text-width.js";

describe("text width", () => {
  it("ignores ANSI escapes", () => {
    expect(stripAnsi("\u001B[31mred\u001B[39m")).toBe("red");
    expect(textWidth("\u001B[1m→ ok\u001B[22m")).toBe(4);
  });

  it("truncates with an ellipsis and pads to a width", () => {
    expect(truncate("legacy-session-token", 10)).toBe("legacy-se…");
    expect(truncate("short", 10)).toBe("short");
    expect(fitWidth("ab", 4)).toBe("ab  ");
    expect(fitWidth("abcdef", 4)).toBe("abc…");
  });

  it.each([10, 16, 30])("wraps so that no line exceeds %i columns", (width) => {
    const text =
      "[Planner] DEPRECATING → legacy-session-token-with-a-very-long-name (replaced by JWT)";
    const lines = wrapText(text, width);
    for (const line of lines) expect(textWidth(line)).toBeLessThanOrEqual(width);
    expect(lines.join("").replace(/\s/g, "")).toBe(text.replace(/\s/g, ""));
  });

  it("keeps the newest items that fit in the rows", () => {
    const items = ["one", "two words here that wrap", "three"];
    expect(fitTail(items, (item) => item, 10, 4)).toEqual(["two words here that wrap", "three"]);
    expect(fitTail(items, (item) => item, 10, 1)).toEqual(["three"]);
  });
});

describe("wide and combining text", () => {
  it.each([
    ["日本語", 6],
    ["🚀 ship", 7],
    ["e\u0301te\u0301", 3],
    ["👩‍💻", 2],
  ])("counts %s as %i columns", (text, width) => {
    expect(textWidth(text)).toBe(width);
  });

  it.each([
    ["", 3],
    ["a", 1],
    ["abc", 3],
    ["abcdef", 3],
    ["run sw-1a2b3c4d: Add JWT authentication to the API.", 20],
    ["~!@#$%^&*()_+{}|:<>?", 7],
  ])("measures and cuts printable ASCII %j at %i exactly as the libraries do", (text, width) => {
    expect(textWidth(text)).toBe(stringWidth(text));
    expect(truncate(text, width)).toBe(
      stringWidth(text) <= width ? text : cliTruncate(text, width, { position: "end" }),
    );
  });

  it("pads and cuts by columns, not code points", () => {
    expect(textWidth(fitWidth("認証ミドルウェア", 9))).toBe(9);
    expect(textWidth(fitWidth("🚀🚀🚀🚀", 5))).toBe(5);
    expect(textWidth(fitWidth("café", 6))).toBe(6);
  });

  it.each([4, 7, 12])("wraps CJK and emoji within %i columns", (width) => {
    const lines = wrapText("認証 ミドルウェアを作る 🚀🚀 deploy ünïcödé", width);
    for (const line of lines) expect(textWidth(line)).toBeLessThanOrEqual(width);
  });
});
