import { describe, expect, it } from "vitest";
import {
  authorities,
  authorityOf,
  compareAuthority,
  isAuthority,
  mayOverrule,
} from "../../src/context/authority.js";

describe("authority", () => {
  it("orders user > verified > agent > speculative", () => {
    expect(compareAuthority("user", "verified")).toBeGreaterThan(0);
    expect(compareAuthority("verified", "agent")).toBeGreaterThan(0);
    expect(compareAuthority("agent", "speculative")).toBeGreaterThan(0);
    expect(compareAuthority("agent", "agent")).toBe(0);
    expect([...authorities].sort((a, b) => compareAuthority(b, a))).toEqual([
      "user",
      "verified",
      "agent",
      "speculative",
    ]);
  });

  it("lets a write overrule only what ranks no higher", () => {
    expect(mayOverrule("agent", "user")).toBe(false);
    expect(mayOverrule("speculative", "agent")).toBe(false);
    expect(mayOverrule("user", "user")).toBe(true);
    expect(mayOverrule("user", "speculative")).toBe(true);
  });

  it("reads metadata.authority, defaulting to agent for anything else", () => {
    expect(authorityOf({ authority: "user" })).toBe("user");
    expect(authorityOf({ authority: "USER" })).toBe("agent");
    expect(authorityOf({ authority: 3 })).toBe("agent");
    expect(authorityOf({})).toBe("agent");
    expect(authorityOf(undefined)).toBe("agent");
    expect(isAuthority("verified")).toBe(true);
    expect(isAuthority("admin")).toBe(false);
  });
});
