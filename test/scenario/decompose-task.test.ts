import { describe, expect, it } from "vitest";
import {
  decisionFromSentence,
  decomposeTask,
  moduleFromSentence,
  toModuleName,
} from "../../src/scenario/decompose-task.js";

describe("toModuleName", () => {
  it.each([
    ["legacy Stripe v1 module", "legacy-stripe-v1"],
    ["the existing session module", "session"],
    ["a payment service", "payment-service"],
  ])("%s -> %s", (phrase, name) => {
    expect(toModuleName(phrase)).toBe(name);
  });
});

describe("decisionFromSentence", () => {
  it("reads a deprecation and its target", () => {
    expect(decisionFromSentence("Deprecate the legacy session token in favour of JWT")).toEqual({
      target: "legacy-session-token",
      value: "deprecate",
      content: "Deprecate the legacy session token in favour of JWT.",
    });
  });

  it("reads a keep", () => {
    expect(decisionFromSentence("Keep legacy-cache")?.value).toBe("keep");
  });

  it("ignores work sentences", () => {
    expect(decisionFromSentence("Build a payment service")).toBeUndefined();
  });
});

describe("moduleFromSentence", () => {
  it("names the module a work sentence asks for", () => {
    expect(moduleFromSentence("Build a payment service on Stripe")).toBe(
      "payment-service-on-stripe",
    );
    expect(moduleFromSentence("Implement the rate limiter for the API")).toBe("rate-limiter");
    expect(moduleFromSentence("Deprecate X")).toBeUndefined();
  });
});

describe("decomposeTask", () => {
  it("falls back to the whole task when no sentence decides anything", () => {
    const slices = decomposeTask("Build a rate limiter.");
    expect(slices.planner).toContain("Decide the architecture for");
    expect(slices.coder).toBe("Build a rate limiter.");
    expect(slices.inventory).toEqual([]);
  });
});
