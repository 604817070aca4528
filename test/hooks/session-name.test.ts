import { describe, expect, it } from "vitest";
import { hasUnstorableText } from "../../src/context/validate-input.js";
import { normaliseAgentName } from "../../src/hooks/session-name.js";

describe("normaliseAgentName", () => {
  it("keeps a clean name up to 100 characters as it is", () => {
    for (const name of ["b6519490-6285-4c9d-850d-4c3ca457ff04", "alice-1", "é".repeat(100)]) {
      expect(normaliseAgentName(name)).toBe(name);
    }
    expect(normaliseAgentName("")).toBe("");
  });

  it("gives a long or unclean id a stable, valid name: its readable start and a hash", () => {
    const long = `session-${"x".repeat(300)}`;
    const named = normaliseAgentName(long);
    expect(named).toMatch(/^session-x{32}~[0-9a-f]{16}$/);
    expect(normaliseAgentName(long)).toBe(named);
    expect(normaliseAgentName(`${long}y`)).not.toBe(named);
    const withNul = normaliseAgentName("sess\u0000ion\n1");
    expect(withNul).toMatch(/^session1~[0-9a-f]{16}$/);
    expect(hasUnstorableText(withNul)).toBe(false);
    expect(normaliseAgentName("\u0000\u0001")).toMatch(/^session~[0-9a-f]{16}$/);
    expect(normaliseAgentName("\ud800abc")).toMatch(/^abc~[0-9a-f]{16}$/);
  });
});
