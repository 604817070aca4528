import { describe, expect, it } from "vitest";
import { type CollisionFacts, collisionCauseOf } from "../../src/scenario/attribute-collision.js";
import type { ScenarioEvent } from "../../src/scenario/scenario-events.js";

const runId = "sw-test";

const joined = (agentId: string, at: number): ScenarioEvent => ({
  type: "agent-start",
  runId,
  at,
  agentId,
  taskSlice: "",
});
const read = (agentId: string, at: number): ScenarioEvent => ({
  type: "context-read",
  runId,
  at,
  agentId,
  task: "",
  memoryIds: [],
  decisions: [],
  disputes: [],
});
const decided = (
  agentId: string,
  at: number,
  target = "auth",
  value = "deprecate",
): ScenarioEvent => ({
  type: "decision-write",
  runId,
  at,
  agentId,
  kind: "architectural_decision",
  target,
  value,
  content: `${value} ${target}`,
});
const started = (agentId: string, at: number, module = "auth"): ScenarioEvent => ({
  type: "module-start",
  runId,
  at,
  agentId,
  module,
  estimatedMs: 10,
});
const built = (agentId: string, at: number, module = "auth"): ScenarioEvent => ({
  type: "module-end",
  runId,
  at,
  agentId,
  module,
  tokens: 100,
  ms: 10,
});

/** The Reviewer's finding: the planner's deprecation of `auth` contradicted by coder's build. */
const contradicted: CollisionFacts = {
  module: "auth",
  agents: ["planner", "coder"],
  duplicate: false,
};

/** Sorted by time, as a run emits them. */
/** A coder that joins at 10, reads at 12 and builds auth from 20 to 50: the late-joiner cases. */
const coderJoiningAt10 = (): ScenarioEvent[] => [
  joined("coder", 10),
  read("coder", 12),
  started("coder", 20),
  built("coder", 50),
];

function cause(events: ScenarioEvent[], facts: CollisionFacts = contradicted) {
  return collisionCauseOf(
    [...events].sort((a, b) => a.at - b.at),
    facts,
  );
}

describe("collisionCauseOf", () => {
  it("blames the missing atomic claim for a module built twice, whatever else happened", () => {
    const events = [joined("coder", 0), decided("planner", 1), built("coder", 50)];
    expect(cause(events, { ...contradicted, duplicate: true })).toBe("atomic claim");
  });

  describe("a contradicted deprecation", () => {
    it("was there to be read before acting: read-before-act", () => {
      const events = [
        joined("coder", 0),
        decided("planner", 5),
        read("coder", 10),
        started("coder", 20),
        built("coder", 50),
      ];
      expect(cause(events)).toBe("read-before-act");
    });

    it("landed after the builder's last read, while it thought: mid-build invalidation", () => {
      const events = [
        joined("coder", 0),
        read("coder", 10),
        decided("planner", 15),
        started("coder", 20),
        built("coder", 50),
      ];
      expect(cause(events)).toBe("mid-build invalidation");
    });

    it("landed during the build: mid-build invalidation (a read during the build does not count)", () => {
      const events = [
        joined("coder", 0),
        read("coder", 10),
        started("coder", 20),
        decided("planner", 30),
        read("coder", 40),
        built("coder", 50),
      ];
      expect(cause(events)).toBe("mid-build invalidation");
    });

    it("landed at the very time of the last read: that read saw it, read-before-act", () => {
      const events = [
        joined("coder", 0),
        read("coder", 10),
        decided("planner", 10),
        started("coder", 20),
        built("coder", 50),
      ];
      expect(cause(events)).toBe("read-before-act");
    });

    it("with no module-start, reads up to the build's end count", () => {
      const events = [
        joined("coder", 0),
        read("coder", 10),
        decided("planner", 30),
        read("coder", 40),
        built("coder", 50),
        started("coder", 60),
      ];
      expect(cause(events)).toBe("read-before-act");
      const withoutLateRead = [
        joined("coder", 0),
        read("coder", 10),
        decided("planner", 30),
        built("coder", 50),
        read("coder", 55),
        started("coder", 60),
      ];
      expect(cause(withoutLateRead)).toBe("mid-build invalidation");
    });

    it("counts only the builder's own reads", () => {
      const events = [
        joined("coder", 0),
        read("coder", 10),
        decided("planner", 15),
        read("other", 18),
        started("coder", 20),
        built("coder", 50),
      ];
      expect(cause(events)).toBe("mid-build invalidation");
    });

    it("counts only the builder's own start of this module", () => {
      // Reads up to the start of the build count; an earlier start elsewhere would hide the read at 17.
      const before = [
        joined("coder", 0),
        read("coder", 3),
        decided("planner", 15),
        read("coder", 17),
      ];
      const after = [started("coder", 20), built("coder", 50)];
      expect(cause([...before, started("other", 5), ...after])).toBe("read-before-act");
      expect(cause([...before, started("coder", 5, "billing"), ...after])).toBe("read-before-act");
    });

    it("counts only the builder's end of this module", () => {
      const events = [
        joined("coder", 0),
        read("coder", 10),
        started("coder", 20),
        built("coder", 30, "billing"),
        decided("planner", 35),
        built("coder", 50),
      ];
      expect(cause(events)).toBe("mid-build invalidation");
    });

    it("came before the builder joined: history for a late joiner", () => {
      const events = [decided("planner", 5), ...coderJoiningAt10()];
      expect(cause(events)).toBe("history for a late joiner");
    });

    it("made the moment the builder joined is for its read, not history", () => {
      const events = [decided("planner", 10), ...coderJoiningAt10()];
      expect(cause(events)).toBe("read-before-act");
    });

    it("judges by the builder's join, not another agent's", () => {
      const events = [joined("other", 0), decided("planner", 5), ...coderJoiningAt10()];
      expect(cause(events)).toBe("history for a late joiner");
    });

    it("counts a read made the moment the build starts", () => {
      const events = [
        joined("coder", 0),
        read("coder", 10),
        decided("planner", 15),
        read("coder", 20),
        started("coder", 20),
        built("coder", 50),
      ];
      expect(cause(events)).toBe("read-before-act");
    });

    it("came after the build ended: decided after the work", () => {
      const events = [
        joined("coder", 0),
        read("coder", 10),
        started("coder", 20),
        built("coder", 50),
        decided("planner", 60),
      ];
      expect(cause(events)).toBe("decided after the work");
    });

    it("came at the build's very end: decided after the work", () => {
      const events = [
        joined("coder", 0),
        read("coder", 10),
        started("coder", 20),
        built("coder", 50),
        decided("planner", 50),
      ];
      expect(cause(events)).toBe("decided after the work");
    });

    it("is judged against a builder's build, never the decider's own", () => {
      const events = [
        joined("coder", 0),
        read("coder", 10),
        started("planner", 20),
        built("planner", 40),
        decided("planner", 45),
        started("coder", 30),
        built("coder", 50),
      ];
      expect(cause(events)).toBe("mid-build invalidation");
    });

    it("is judged against a builder the Reviewer named, not anyone who built the module", () => {
      const events = [
        joined("coder", 0),
        read("coder", 10),
        built("outsider", 30),
        decided("planner", 35),
        started("coder", 20),
        built("coder", 50),
      ];
      expect(cause(events)).toBe("mid-build invalidation");
    });

    it("with no build by a named builder, falls back to read-before-act", () => {
      const events = [
        joined("coder", 0),
        decided("planner", 5),
        read("coder", 10),
        built("planner", 50),
      ];
      expect(cause(events)).toBe("read-before-act");
    });
  });

  describe("without a deprecation of the module", () => {
    it.each([
      ["no decision at all", []],
      ["a deprecation of another module", [decided("planner", 15, "billing")]],
      ["a keep of the module", [decided("planner", 15, "auth", "keep")]],
    ])("%s: read-before-act", (_, decisions) => {
      const events = [
        joined("coder", 0),
        read("coder", 10),
        ...decisions,
        started("coder", 20),
        built("coder", 50),
      ];
      expect(cause(events)).toBe("read-before-act");
    });
  });
});
