import { describe, expect, it } from "vitest";
import { type FieldKind, valueFitsKind } from "../../src/crdt/field-kind.js";

describe("valueFitsKind", () => {
  it.each<[FieldKind, unknown, boolean]>([
    ["set", ["a"], true],
    ["set", "a", false],
    ["text", "a line", true],
    ["text", "", true],
    ["text", { text: "a line" }, false],
    ["text", ["a line"], false],
    ["map", { db: "h" }, true],
    ["map", ["h"], false],
    ["counter", 3, true],
    ["counter", -0.5, true],
    ["counter", "3", false],
    ["counter", Number.POSITIVE_INFINITY, false],
    ["counter", Number.NaN, false],
    ["counter", null, false],
    ["register", "RS256", true],
    ["register", null, true],
    ["register", ["a"], true],
    ["register", { a: 1 }, true],
  ])("a %s field takes %j: %s", (kind, value, fits) => {
    expect(valueFitsKind(kind, value)).toBe(fits);
  });
});
