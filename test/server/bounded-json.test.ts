import { describe, expect, it } from "vitest";
import { boundedEcho, echoLimits } from "../../src/server/bounded-json.js";

describe("boundedEcho", () => {
  it("keeps primitives, and writes -0 as the string it was sent as", () => {
    for (const value of [0, 1.5, -3, true, false, null, "text"]) {
      expect(boundedEcho(value)).toBe(value);
    }
    expect(boundedEcho(-0)).toBe("-0");
    expect(boundedEcho([-0, { n: -0 }])).toEqual(["-0", { n: "-0" }]);
  });

  it("keeps a string of the limit and cuts one longer, marking the cut", () => {
    const limit = echoLimits.stringLength;
    expect(boundedEcho("s".repeat(limit))).toBe("s".repeat(limit));
    expect(boundedEcho("s".repeat(limit + 1))).toBe(`${"s".repeat(limit)}…`);
  });

  it("keeps arrays and objects of the width limit, and marks one member more", () => {
    const width = echoLimits.width;
    const list = Array.from({ length: width }, (_, index) => index);
    expect(boundedEcho(list)).toEqual(list);
    expect(boundedEcho([...list, width])).toEqual([...list, "…"]);
    const object = Object.fromEntries(list.map((index) => [`k${index}`, index]));
    expect(boundedEcho(object)).toEqual(object);
    expect(boundedEcho({ ...object, extra: 1 })).toEqual({ ...object, "…": "…" });
  });

  it("cuts objects at the depth limit but keeps primitives there", () => {
    let nested: unknown = { leaf: 1 };
    for (let level = 0; level < echoLimits.depth - 1; level += 1) nested = { a: nested };
    // `nested` is 8 objects deep: the 8th object (depth 7) is kept, its leaf too.
    expect(JSON.stringify(boundedEcho(nested))).toBe(
      `${'{"a":'.repeat(echoLimits.depth - 1)}{"leaf":1}${"}".repeat(echoLimits.depth - 1)}`,
    );
    expect(JSON.stringify(boundedEcho({ a: nested }))).toBe(
      `${'{"a":'.repeat(echoLimits.depth)}"…"${"}".repeat(echoLimits.depth)}`,
    );
  });

  it(`copies at most ${echoLimits.total} values in all`, () => {
    const grid = Array.from({ length: echoLimits.width }, () =>
      Array.from({ length: echoLimits.width }, () => 1),
    );
    const echo = boundedEcho(grid) as unknown[][];
    const values = echo.flat();
    // The outer array and each row count as values too.
    const kept = values.filter((value) => value === 1).length;
    const rowsKept = echo.filter((row) => Array.isArray(row)).length;
    expect(1 + rowsKept + kept).toBe(echoLimits.total);
    expect(values.at(-1)).toBe("…");
    expect(echo.at(-1)).toBe("…");
  });
});
