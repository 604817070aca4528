import { describe, expect, it } from "vitest";
import type { ScenarioEvent } from "../../../src/scenario/scenario-events.js";
import {
  compareRuns,
  comparisonCostLine,
  comparisonHeadline,
  comparisonRowCount,
  formatComparisonTable,
} from "../../../src/ui/format/comparison.js";
import { verdictFor } from "../../../src/ui/format/verdict.js";
import {
  escalationEvents,
  naiveCollisionEvents,
  statewaveAvoidedEvents,
} from "../../support/fixtures/run-events.js";

function summaryOf(events: ScenarioEvent[]) {
  const end = events.at(-1);
  if (end?.type !== "run-end") throw new Error("fixture must end with run-end");
  return end.summary;
}

describe("verdictFor", () => {
  it("reports a collision with what was built in vain", () => {
    const events = naiveCollisionEvents();
    const verdict = verdictFor(summaryOf(events), events);
    expect(verdict.kind).toBe("collision");
    expect(verdict.title).toBe(
      "COLLISION DETECTED — work built in vain; the wasted compute cannot be recovered",
    );
    expect(verdict.details).toContain("Wasted: 1 module built in vain, 2,400 tokens, 12.0s");
  });

  it("reports a conflict avoided, naming who read whose decision", () => {
    const events = statewaveAvoidedEvents();
    const verdict = verdictFor(summaryOf(events), events);
    expect(verdict.kind).toBe("avoided");
    expect(verdict.title).toBe(
      "CONFLICT AVOIDED — the Coder read the Planner's decision before acting",
    );
  });

  /** The avoided run with two coders: coder-1 skips the module coder-2 claimed (or cancels it). */
  function twoCodersEvents(stop: "module-skip" | "module-cancel", reason: string): ScenarioEvent[] {
    return statewaveAvoidedEvents().map((event): ScenarioEvent => {
      if (event.type === "run-start") {
        return {
          ...event,
          agents: [
            { id: "planner", role: "planner", name: "Planner", color: "cyan" },
            { id: "coder-1", role: "coder", name: "Coder 1", color: "magenta" },
            { id: "coder-2", role: "coder", name: "Coder 2", color: "green" },
          ],
        };
      }
      if (event.type !== "module-skip") return event;
      const base = { runId: event.runId, at: event.at, agentId: "coder-1", module: "search-index" };
      return stop === "module-skip"
        ? { ...base, type: stop, reason, causedBy: "coder-2" }
        : { ...base, type: stop, reason, causedBy: "coder-2", tokensSpent: 300, msSpent: 1_000 };
    });
  }

  it.each([
    [
      "module-skip",
      "already claimed by coder-2",
      "CONFLICT AVOIDED — Coder 1 read Coder 2's claim before acting",
    ],
    [
      "module-skip",
      "claim escalated and settled: claimed-by:coder-2",
      "CONFLICT AVOIDED — Coder 1 read Coder 2's claim before acting",
    ],
    [
      "module-skip",
      "claim escalated and settled: deprecated-by:coder-2",
      "CONFLICT AVOIDED — Coder 1 read Coder 2's decision before acting",
    ],
    [
      "module-cancel",
      "search-index changed",
      "CONFLICT AVOIDED — Coder 1 stopped as soon as Coder 2's decision landed",
    ],
  ] as const)("names agents without a role-like name bare (%s: %s)", (stop, reason, title) => {
    const events = twoCodersEvents(stop, reason);
    expect(verdictFor(summaryOf(events), events).title).toBe(title);
  });

  it("never calls a run that built nothing a clean review", () => {
    const events = statewaveAvoidedEvents().filter(
      (event) =>
        !["module-start", "module-end", "module-skip", "decision-write"].includes(event.type),
    );
    const end = events.at(-1);
    if (end?.type !== "run-end") throw new Error("fixture must end with run-end");
    const verdict = verdictFor({ ...end.summary, conflictsAvoided: 0 }, events);
    expect(verdict.kind).toBe("clean");
    expect(verdict.title).toBe(
      "NOTHING TO COORDINATE — the task gave the agents no work and no decision",
    );
  });

  it("lists escalations with their resolution", () => {
    const events = escalationEvents();
    const verdict = verdictFor(summaryOf(events), events);
    expect(verdict.kind).toBe("escalated");
    expect(verdict.escalations).toEqual([
      "decisions/session-format: Planner A: jwt vs Planner B: opaque (resolved to jwt by Planner A)",
    ]);
  });
});

describe("compareRuns", () => {
  it("counts the waste of each side and says which did better", () => {
    const rows = compareRuns(
      summaryOf(naiveCollisionEvents()),
      summaryOf(statewaveAvoidedEvents()),
    );
    expect(rows.map((row) => [row.label, row.naive, row.statewave, row.better])).toEqual([
      ["Outcome", "collision", "1 avoided", "statewave"],
      ["Mechanism", "-", "-", "same"],
      ["Modules built in vain", "1 (legacy-session-token)", "0", "statewave"],
      ["Wasted", "2,400 tokens, 12.0s", "0 tokens, 0.0s", "statewave"],
      ["Escalations", "0", "0", "same"],
      ["Delivered", "-", "-", "same"],
      ["Totals", "6,900 tokens, 30.2s", "4,500 tokens, 15.1s", "statewave"],
    ]);
    expect(
      comparisonHeadline(summaryOf(naiveCollisionEvents()), summaryOf(statewaveAvoidedEvents())),
    ).toBe("Shared context saved 2,400 tokens and 12.0s of wasted work.");
  });

  it("returns as many rows as the layout reserves", () => {
    const rows = compareRuns(
      summaryOf(naiveCollisionEvents()),
      summaryOf(statewaveAvoidedEvents()),
    );
    expect(rows).toHaveLength(comparisonRowCount);
  });

  it("names the mechanism behind each side, and says a tie is a tie", () => {
    const baseline = {
      ...summaryOf(naiveCollisionEvents()),
      mode: "broadcast" as const,
      collisionCause: "mid-build invalidation" as const,
    };
    const shared = {
      ...summaryOf(statewaveAvoidedEvents()),
      avoidedBy: { "mid-build invalidation": 1 },
    };
    const mechanism = compareRuns(baseline, shared).find((row) => row.label === "Mechanism");
    expect(mechanism).toMatchObject({
      naive: "lacked mid-build invalidation",
      statewave: "mid-build invalidation",
    });
    expect(comparisonHeadline(baseline, shared)).toMatch(/by mid-build invalidation\.$/);
    const tie = { ...shared, mode: "broadcast" as const, avoidedBy: { "read-before-act": 1 } };
    expect(comparisonHeadline(tie, { ...tie, mode: "statewave" })).toMatch(/^A tie: neither side/);
    // A tie says what differs: the cost under the one rule, and which side delivered less.
    const cost = (deliveredTokens: number, messagesDelivered: number, storeRequests: number) => ({
      deliveredTokens,
      messagesDelivered,
      storeRequests,
      byAgent: {},
    });
    const chat = { ...tie, mode: "group-chat" as const, cost: cost(99, 9, 0) };
    const store = { ...tie, mode: "statewave" as const, cost: cost(278, 0, 59) };
    expect(comparisonHeadline(chat, store)).toContain(
      "What differs is the cost, under one rule for both: group-chat delivered 99 tokens (9 messages), shared context 278 tokens (59 store requests); group-chat delivered less.",
    );
    expect(comparisonHeadline(chat, { ...store, cost: cost(99, 0, 59) })).not.toContain(
      "What differs",
    );
    // The live view's one-row version: the headline without it, the cost on its own short line.
    expect(comparisonHeadline(chat, store, { cost: "none" })).not.toContain("What differs");
    expect(comparisonCostLine(chat, store)).toBe(
      "Cost, one rule for both: group-chat delivered less (99 vs 278 tokens)",
    );
  });

  it("a win says what it costs, and a coordinator restart what each side lost", () => {
    const cost = (deliveredTokens: number, messagesDelivered: number, storeRequests: number) => ({
      deliveredTokens,
      messagesDelivered,
      storeRequests,
      byAgent: {},
    });
    const chat = {
      ...summaryOf(naiveCollisionEvents()),
      mode: "group-chat" as const,
      collisionCause: "history for a late joiner" as const,
      cost: cost(231, 17, 0),
    };
    const store = {
      ...summaryOf(statewaveAvoidedEvents()),
      avoidedBy: { "history for a late joiner": 1 },
      cost: cost(713, 0, 102),
    };
    // Without a restart: the win and its cost, nothing about a coordinator.
    const plain = comparisonHeadline(chat, store);
    expect(plain).toMatch(/^Shared context saved .* by history for a late joiner\. What it costs/);
    expect(plain).toContain(
      "What it costs, under one rule for both: group-chat delivered 231 tokens (17 messages), shared context 713 tokens (102 store requests); group-chat delivered less.",
    );
    expect(plain).not.toContain("coordinator");
    const restarted = comparisonHeadline(
      { ...chat, coordinatorRestarts: ["the room kept its transcript …: both are lost"] },
      { ...store, coordinatorRestarts: ["the store's log is durable: nothing is lost"] },
    );
    expect(restarted).toContain(
      "by history for a late joiner. The coordinator restarted: group-chat's room lost its transcript and claims (kept in memory); the store's log lost nothing. What it costs",
    );
    // The live view keeps the cost for its own line, and its one row fits 120 columns.
    expect(comparisonHeadline(chat, store, { cost: "none" })).not.toContain("What it costs");
    const live = comparisonHeadline(
      { ...chat, coordinatorRestarts: ["lost"] },
      { ...store, coordinatorRestarts: ["nothing lost"] },
      { cost: "none" },
    );
    expect(live).toMatch(
      /^A coordinator restart lost group-chat's transcript, not the store's log: shared context saved .*\.$/,
    );
    expect(live.length).toBeLessThanOrEqual(118);
  });

  it.each([60, 80, 120])("prints a table no wider than %i columns", (width) => {
    const rows = compareRuns(
      summaryOf(naiveCollisionEvents()),
      summaryOf(statewaveAvoidedEvents()),
    );
    const lines = formatComparisonTable(rows, width);
    expect(lines[0]).toMatch(/Naive\s+Shared context/);
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(width);
  });
});
