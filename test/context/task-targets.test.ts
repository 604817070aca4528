import { describe, expect, it } from "vitest";
import { namesTarget, targetsNamedIn } from "../../src/context/task-targets.js";

describe("targetsNamedIn", () => {
  it("offers every part of a path between its separators, as written and lower-cased", () => {
    const candidates = targetsNamedIn("Edit src/Legacy-Billing/a.ts now");
    for (const part of [
      "src",
      "Legacy-Billing",
      "legacy-billing",
      "src/legacy-billing",
      "a.ts",
      "a",
      "ts",
      "Edit",
      "now",
    ]) {
      expect(candidates).toContain(part);
    }
  });

  it("offers runs of up to three words for a target with spaces, without their punctuation", () => {
    const candidates = targetsNamedIn("retire the legacy billing, please");
    expect(candidates).toContain("legacy billing");
    expect(candidates).toContain("the legacy billing");
    expect(candidates).not.toContain("retire the legacy billing");
  });

  it("holds every target the task names as a whole word (what namesTarget accepts)", () => {
    const task = "Port (legacy-billing) to auth/jwt.v2: keep old-12.";
    for (const target of ["legacy-billing", "auth/jwt", "jwt.v2", "old-12", "auth", "v2"]) {
      expect(namesTarget(task, target)).toBe(true);
      expect(targetsNamedIn(task)).toContain(target);
    }
    expect(namesTarget(task, "old-1")).toBe(false);
  });
});
