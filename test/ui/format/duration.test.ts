import { describe, expect, it } from "vitest";
import {
  formatDuration,
  formatRelative,
  formatTokens,
  formatUtcTime,
} from "../../../src/ui/format/duration.js";

describe("formats", () => {
  it.each([
    [0, "T+0.0s"],
    [2_450, "T+2.5s"],
    [59_900, "T+59.9s"],
    [240_000, "T+4m0s"],
    [3_723_000, "T+1h2m3s"],
    // Set up just before run-start: rounds to the start, not to a "T-0.0s".
    [-28, "T+0.0s"],
    [-1_200, "T-1.2s"],
  ])("relative time %i ms is %s", (ms, expected) => {
    expect(formatRelative(ms)).toBe(expected);
  });

  it("formats tokens, durations and UTC times", () => {
    expect(formatTokens(12400)).toBe("12,400");
    expect(formatDuration(90_000)).toBe("1m30s");
    expect(formatUtcTime("2025-06-01T14:03:07.250Z")).toBe("14:03:07.250");
  });
});
