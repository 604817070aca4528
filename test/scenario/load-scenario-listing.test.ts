import { describe, expect, it, vi } from "vitest";

/**
 * The shipped folder as the loader sees it, in an order of the file system's choosing and with a
 * file that is not a scenario; the default scenario is one that does not sort first. The shipped
 * folder itself (sorted by libuv, the default first in the alphabet) cannot show that the loader
 * sorts, filters and puts the default first on its own.
 */
vi.mock("node:fs/promises", async (importOriginal) => {
  const actual = await importOriginal<typeof import("node:fs/promises")>();
  return {
    ...actual,
    readdir: async () => [
      "two-coders.yaml",
      "README.md",
      "auth-jwt.yaml",
      "late-decision.yaml",
      "disagreeing-planners.json",
    ],
  };
});

vi.mock("../../src/scenario/default-scenario.js", () => ({
  defaultScenarioName: "late-decision",
  defaultDemoScenario: { broadcast: "late-decision", naive: "late-decision" },
}));

const { listScenarios, loadScenario } = await import("../../src/scenario/load-scenario.js");

describe("listScenarios", () => {
  it("lists the scenario files only, the default first and the rest by name", async () => {
    expect((await listScenarios()).map((scenario) => scenario.name)).toEqual([
      "late-decision",
      "auth-jwt",
      "disagreeing-planners",
      "two-coders",
    ]);
  });
});

describe("loadScenario", () => {
  it("names the shipped scenarios in order when refusing an unknown name", async () => {
    await expect(loadScenario("README")).rejects.toThrow(
      "a shipped scenario (auth-jwt, disagreeing-planners, late-decision, two-coders) or a path",
    );
  });
});
