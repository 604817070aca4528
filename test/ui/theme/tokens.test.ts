import { describe, expect, it } from "vitest";
import { createTheme, isColorDisabled } from "../../../src/ui/theme/tokens.js";

describe("isColorDisabled", () => {
  it.each([
    // [NO_COLOR, --no-color given, colour off]: https://no-color.org — present AND non-empty.
    [undefined, false, false],
    ["", false, false],
    ["1", false, true],
    ["0", false, true],
    [undefined, true, true],
    ["", true, true],
  ])("NO_COLOR=%j, --no-color %s -> %s", (noColor, flag, expected) => {
    expect(isColorDisabled({ NO_COLOR: noColor }, flag)).toBe(expected);
  });
});

describe("createTheme", () => {
  it("has no colour at all without colour", () => {
    const theme = createTheme({ noColor: true });
    expect(theme.color).toBe(false);
    expect(theme.status.error).toBeUndefined();
    expect(theme.agent("magenta")).toBeUndefined();
    expect(createTheme().agent("magenta")).toBe("magenta");
  });
});
