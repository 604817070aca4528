import { describe, expect, it } from "vitest";
import { mechanismOfSkip } from "../../src/agents/attribute-skip.js";
import type { KnownDecision, KnownDispute } from "../../src/agents/brain.js";
import type { KnownState } from "../../src/coordination/coordination.js";

const joinedAt = 100;

function known(parts: {
  decisions?: KnownDecision[];
  disputes?: KnownDispute[];
  claims?: Record<string, string>;
}): KnownState {
  return {
    decisions: parts.decisions ?? [],
    disputes: parts.disputes ?? [],
    claims: parts.claims ?? {},
    tokens: 0,
  };
}

function deprecation(target: string, at: number | undefined): KnownDecision {
  return {
    target,
    value: "deprecate",
    by: "planner",
    content: `Deprecate ${target}`,
    ...(at === undefined ? {} : { at }),
  };
}

const skipBecauseOfPlanner = { action: "skip", reason: "deprecated", causedBy: "planner" } as const;
const dispute: KnownDispute = {
  target: "auth",
  contenders: [
    { agentId: "planner-1", value: "deprecate" },
    { agentId: "planner-2", value: "keep" },
  ],
};

describe("mechanismOfSkip", () => {
  it("credits no mechanism when nobody caused the skip, whatever the agent read", () => {
    const state = known({ disputes: [dispute], decisions: [deprecation("auth", 0)] });
    const choice = { action: "skip", reason: "not needed", causedBy: null } as const;
    expect(mechanismOfSkip(state, "auth", choice, joinedAt)).toBeNull();
  });

  it("credits the surfaced dispute first when the module is disputed (even if also deprecated)", () => {
    const state = known({ disputes: [dispute], decisions: [deprecation("auth", 0)] });
    expect(mechanismOfSkip(state, "auth", skipBecauseOfPlanner, joinedAt)).toBe("dispute surfaced");
  });

  it("ignores a dispute on another module", () => {
    const state = known({ disputes: [{ ...dispute, target: "billing" }] });
    expect(mechanismOfSkip(state, "auth", skipBecauseOfPlanner, joinedAt)).toBe("read-before-act");
  });

  describe("a deprecation of the module", () => {
    it.each([
      ["made before the agent joined: history", joinedAt - 1, "history for a late joiner"],
      ["made the moment it joined: its own read", joinedAt, "read-before-act"],
      ["made after it joined: its own read", joinedAt + 1, "read-before-act"],
      ["of unknown time: its own read", undefined, "read-before-act"],
    ] as const)("%s", (_, at, mechanism) => {
      const state = known({ decisions: [deprecation("auth", at)] });
      expect(mechanismOfSkip(state, "auth", skipBecauseOfPlanner, joinedAt)).toBe(mechanism);
    });

    it("counts only a deprecation of this module, and only a deprecation", () => {
      const state = known({
        decisions: [deprecation("billing", 0), { ...deprecation("auth", 0), value: "keep" }],
      });
      expect(mechanismOfSkip(state, "auth", skipBecauseOfPlanner, joinedAt)).toBe(
        "read-before-act",
      );
    });

    it("judges by the first deprecation of the module the agent read", () => {
      const state = known({ decisions: [deprecation("auth", 10), deprecation("auth", 500)] });
      expect(mechanismOfSkip(state, "auth", skipBecauseOfPlanner, joinedAt)).toBe(
        "history for a late joiner",
      );
    });
  });

  it("credits read-before-act for a claim someone else made", () => {
    const state = known({ claims: { auth: "coder-2" } });
    const choice = { action: "skip", reason: "claimed", causedBy: "coder-2" } as const;
    expect(mechanismOfSkip(state, "auth", choice, joinedAt)).toBe("read-before-act");
  });
});
