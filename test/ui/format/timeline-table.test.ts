import { describe, expect, it } from "vitest";
import { fromRunEventEpisode } from "../../../src/scenario/run-record.js";
import { buildRunTimeline } from "../../../src/ui/format/run-timeline.js";
import { formatRunsTable } from "../../../src/ui/format/runs-table.js";
import { textWidth } from "../../../src/ui/format/text-width.js";
import {
  formatTimelineReport,
  formatTimelineTable,
} from "../../../src/ui/format/timeline-table.js";
import { episodesOf, memory, stateUpdateEpisode } from "../../support/fixtures/run-episodes.js";
import {
  escalationEvents,
  naiveCollisionEvents,
  statewaveAvoidedEvents,
} from "../../support/fixtures/run-events.js";

function statewaveTimeline(filter = {}) {
  const episodes = episodesOf(statewaveAvoidedEvents());
  episodes.splice(4, 0, stateUpdateEpisode("sw-4e5f6a7b", "coder", episodes[3]!.createdAt));
  return buildRunTimeline(
    "sw-4e5f6a7b",
    {
      episodes,
      memories: [
        memory({
          id: "m-0",
          content: "Keep legacy-session-token",
          status: "superseded",
          confidence: 0.6,
          validTo: "2025-06-01T12:00:00.200Z",
        }),
        memory({ id: "m-1", content: "Deprecate legacy-session-token: replaced by JWT" }),
      ],
    },
    filter,
  );
}

describe("buildRunTimeline", () => {
  it("turns run events into rows with UTC time, relative time, agent, type and content", () => {
    const timeline = statewaveTimeline();
    const skip = timeline.rows.find((row) => row.type === "module-skip");
    expect(skip).toMatchObject({
      time: "12:00:00.250",
      // The fixture's wall clock runs at a tenth of the scenario clock (speed 10).
      relative: "T+0.3s",
      scenarioRelative: "T+2.5s",
      agent: "Coder",
      content: "Skipping → legacy-session-token (deprecated by Planner)",
    });
    expect(timeline.summary?.conflictsAvoided).toBe(1);
    expect(timeline.mode).toBe("statewave");
  });

  it("hides machinery unless raw, and summarises it without base64", () => {
    expect(statewaveTimeline().rows.some((row) => row.type === "state_update")).toBe(false);
    const row = statewaveTimeline({ raw: true }).rows.find(
      (candidate) => candidate.type === "state_update",
    );
    expect(row?.content).toBe("update=[48 bytes] namespace=modules");
    expect(row?.relative).toBe("T+0.2s");
    // Coordination episodes have no scenario time of their own: the table's one clock gives them
    // the time of the run event written just before.
    expect(row?.scenarioRelative).toBeNull();
    expect(row?.machinery).toBe(true);
    expect(row?.at).toMatch(/^T\+\d+\.\ds$/);
    // Asking for a machinery type by name shows it.
    expect(statewaveTimeline({ type: "state_update" }).rows).toHaveLength(1);
  });

  it("says claim encodings as meaning unless raw", () => {
    const escalations = buildRunTimeline("sw-99887766", {
      episodes: episodesOf(escalationEvents()),
      memories: [],
    }).escalations.join("\n");
    expect(escalations).not.toMatch(/claimed-by:/);
    const raw = buildRunTimeline(
      "sw-99887766",
      { episodes: episodesOf(escalationEvents()), memories: [] },
      { raw: true },
    ).escalations.join("\n");
    expect(escalations === raw || /claimed-by:|deprecated-by:/.test(raw)).toBe(true);
  });

  it("puts episodes and run events on one clock: same wall time, same Relative", () => {
    const episodes = episodesOf(statewaveAvoidedEvents());
    const at = episodes.findIndex(
      (episode) => fromRunEventEpisode(episode)?.type === "decision-write",
    );
    const write = episodes[at];
    if (!write) throw new Error("fixture: no decision-write episode");
    // The pipeline records the decision episode just before the decision-write event.
    episodes.splice(at, 0, {
      ...write,
      id: "ep-decision",
      source: "planner",
      type: "architectural_decision",
      payload: { content: "Deprecate legacy-session-token: replaced by JWT" },
    });
    const rows = buildRunTimeline("sw-4e5f6a7b", { episodes, memories: [] }).rows;
    const decision = rows.find((row) => row.type === "architectural_decision");
    const event = rows.find((row) => row.type === "decision-write");
    expect(decision?.time).toBe(event?.time);
    expect(decision?.relative).toBe(event?.relative);
    expect(event).toMatchObject({ relative: "T+0.2s", scenarioRelative: "T+2.0s" });
  });

  it("filters rows by agent name or id and by type, case-insensitively", () => {
    expect(
      statewaveTimeline({ agent: "planner" }).rows.every((row) => row.agent === "Planner"),
    ).toBe(true);
    expect(statewaveTimeline({ agent: "Planner" }).rows).toHaveLength(3);
    expect(statewaveTimeline({ type: "MODULE-SKIP" }).rows).toHaveLength(1);
  });

  it("collects who read what and the memory state", () => {
    const timeline = statewaveTimeline();
    expect(timeline.reads).toEqual([
      {
        relative: "T+0.3s",
        scenarioRelative: "T+2.5s",
        agent: "Coder",
        task: "Implement the auth modules",
        memoryCount: 1,
        decisions: ["legacy-session-token: deprecate (replaced by JWT)"],
        disputes: [],
      },
    ]);
    expect(timeline.activeMemories.map((m) => m.id)).toEqual(["m-1"]);
    expect(timeline.supersededMemories.map((m) => m.id)).toEqual(["m-0"]);
  });
});

describe.each([80, 120])("the timeline report at %i columns", (width) => {
  const lines = formatTimelineReport(statewaveTimeline(), width);

  it("never exceeds the width", () => {
    for (const line of lines) expect(textWidth(line)).toBeLessThanOrEqual(width);
  });

  it("has the table header on one clock, the memory state, escalations and reads", () => {
    expect(lines.find((line) => line.startsWith("Time "))).toMatch(
      /^Time\s+Agent\s+Event type\s+Content$/,
    );
    expect(lines.join(" ")).toContain("Time: since the run started, on the run's own clock");
    expect(formatTimelineReport(statewaveTimeline(), width, "utc").join("\n")).toMatch(
      /^Time \(UTC\)\s+Agent\s+Event type\s+Content$/m,
    );
    expect(lines).toContain("Final memory state: 1 active, 1 superseded");
    expect(lines.join("\n")).toContain("active      [architectural_decision, confidence 0.90]");
    expect(lines.join("\n")).toContain(
      "superseded  [architectural_decision, confidence 0.60] Keep",
    );
    expect(lines).toContain("Who read what");
    expect(lines.join("\n")).toMatch(
      /T\+2\.5s Coder read 1 memory for "Implement the auth modules"/,
    );
  });

  it("lays the table out in stable columns", () => {
    expect(formatTimelineTable(statewaveTimeline().rows, width)).toMatchSnapshot();
  });
});

describe("formatRunsTable", () => {
  it("lists id, mode, scenario, when and outcome", () => {
    const naive = naiveCollisionEvents();
    const end = naive.at(-1);
    const lines = formatRunsTable(
      [
        {
          runId: "sw-4e5f6a7b",
          mode: "statewave",
          scenario: "auth-jwt",
          startedAt: "2025-06-01T12:00:00.000Z",
        },
        {
          runId: "nv-0a1b2c3d",
          mode: "naive",
          scenario: "auth-jwt",
          startedAt: "2025-06-01T11:00:00.000Z",
          summary: end?.type === "run-end" ? end.summary : undefined,
        },
      ],
      80,
    );
    expect(lines).toEqual([
      "Run id       Mode       Scenario  When (UTC)            Outcome",
      "sw-4e5f6a7b  statewave  auth-jwt  2025-06-01 12:00:00Z  not finished",
      "nv-0a1b2c3d  naive      auth-jwt  2025-06-01 11:00:00Z  collision",
    ]);
  });
});
