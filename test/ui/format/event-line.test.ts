import { describe, expect, it } from "vitest";
import { agentDirectoryOf } from "../../../src/ui/format/agent-directory.js";
import { describeEvent, plainEventLine } from "../../../src/ui/format/event-line.js";
import {
  escalationEvents,
  naiveCollisionEvents,
  statewaveAvoidedEvents,
} from "../../support/fixtures/run-events.js";

describe("describeEvent", () => {
  it("gives every event of a run one agent-labelled line", () => {
    const events = statewaveAvoidedEvents();
    const agents = agentDirectoryOf(events);
    const lines = events.map((event) => plainEventLine(describeEvent(event, agents)));
    expect(lines).toContain("[Planner] DEPRECATING → legacy-session-token (replaced by JWT)");
    expect(lines).toContain("[Coder] Reading shared context before starting…");
    expect(lines).toContain("[Coder] Skipping → legacy-session-token (deprecated by Planner)");
  });

  it("names the collision and who found it", () => {
    const events = naiveCollisionEvents();
    const collision = events.find((event) => event.type === "collision");
    expect(collision).toBeDefined();
    const line = describeEvent(collision!, agentDirectoryOf(events));
    expect(line).toMatchObject({ label: "Reviewer", tone: "error" });
    expect(line.text).toBe(
      "COLLISION → legacy-session-token: built after the Planner deprecated it",
    );
  });

  it("lists both sides of an escalation by name", () => {
    const events = escalationEvents();
    const escalation = events.find((event) => event.type === "escalation");
    const line = describeEvent(escalation!, agentDirectoryOf(events));
    expect(plainEventLine(line)).toBe(
      "[Shared state] ESCALATED → decisions/session-format: Planner A wants jwt vs Planner B wants opaque",
    );
  });

  it("a read of one module with nothing on it says which module, not 'no decisions yet'", () => {
    const read = (task: string, source: "inbox" | "interrupt" | "re-read") =>
      describeEvent(
        {
          runId: "gc-00000000",
          at: 0,
          type: "context-read",
          agentId: "coder",
          task,
          memoryIds: [],
          decisions: [],
          disputes: [],
          source,
        },
        agentDirectoryOf([]),
      ).text;
    expect(read("Build module job-api", "inbox")).toBe("Read inbox: no decisions on job-api");
    expect(read("Plan the work", "inbox")).toBe("Read inbox: no decisions yet");
    expect(read("Build module job-api", "re-read")).toBe(
      "Re-read shared context: no decisions on job-api",
    );
  });

  it("falls back to a readable name for an agent the run did not announce", () => {
    const line = describeEvent(
      { runId: "sw-00000000", at: 0, type: "agent-end", agentId: "coder-2" },
      agentDirectoryOf([]),
    );
    expect(line.label).toBe("Coder-2");
  });

  it("tidies the runner's free text: names instead of ids, no repeated module", () => {
    const events = statewaveAvoidedEvents();
    const agents = agentDirectoryOf(events);
    const runId = "sw-4e5f6a7b";
    const decision = describeEvent(
      {
        runId,
        at: 0,
        type: "decision-write",
        agentId: "planner",
        kind: "architectural_decision",
        target: "legacy-session-token",
        value: "deprecate",
        content: "Deprecate legacy-session-token (replaced by JWT).",
      },
      agents,
    );
    expect(decision.text).toBe("DEPRECATING → legacy-session-token (replaced by JWT)");
    const skip = describeEvent(
      {
        runId,
        at: 0,
        type: "module-skip",
        agentId: "coder",
        module: "legacy-session-token",
        reason: "deprecated by planner: Deprecate legacy-session-token (replaced by JWT).",
        causedBy: "planner",
      },
      agents,
    );
    expect(skip.text).toBe("Skipping → legacy-session-token (deprecated by Planner)");
    const collision = describeEvent(
      {
        runId,
        at: 0,
        type: "collision",
        module: "legacy-session-token",
        detectedBy: "reviewer",
        agents: ["coder", "planner"],
        description: "coder built legacy-session-token, which planner deprecated",
        wastedTokens: 1,
        wastedMs: 1,
      },
      agents,
    );
    expect(collision.text).toBe(
      "COLLISION → legacy-session-token: Coder built legacy-session-token, which Planner deprecated",
    );
  });

  it.each([
    // [content, value, expected line]
    ["Deprecate legacy-throttle module.", "deprecate", "DEPRECATING → legacy-throttle"],
    ["Deprecate the legacy throttle module.", "deprecate", "DEPRECATING → legacy-throttle"],
    ["", "deprecate", "DEPRECATING → legacy-throttle"],
    [
      "Deprecate legacy-throttle module; replaced by the token bucket.",
      "deprecate",
      "DEPRECATING → legacy-throttle (replaced by the token bucket)",
    ],
    ["Keep legacy-throttle.", "keep", "DECIDING KEEP → legacy-throttle"],
    // A value the verb does not say is the detail.
    ["", "rate-limit-per-user", "DECIDING → legacy-throttle (rate-limit-per-user)"],
  ])("shows a decision's detail only when it says something (%j)", (content, value, text) => {
    const line = describeEvent(
      {
        runId: "sw-4e5f6a7b",
        at: 0,
        type: "decision-write",
        agentId: "planner",
        kind: "architectural_decision",
        target: "legacy-throttle",
        value,
        content,
      },
      agentDirectoryOf(statewaveAvoidedEvents()),
    );
    expect(line.text).toBe(text);
  });

  it("ends a read's decision before the open disputes (no '.;')", () => {
    const line = describeEvent(
      {
        runId: "sw-4e5f6a7b",
        at: 0,
        type: "context-read",
        agentId: "coder",
        task: "Build the search index",
        memoryIds: ["m-1"],
        decisions: ["planner: Deprecate legacy-grep (search-index replaces it)."],
        disputes: ["modules/search-index"],
      },
      agentDirectoryOf(statewaveAvoidedEvents()),
    );
    expect(line.text).toBe(
      "Read shared context → 1 decision: planner: Deprecate legacy-grep (search-index replaces it); 1 dispute open",
    );
  });
});
