import { describe, expect, it } from "vitest";
import type { ScenarioEvent } from "../../src/scenario/scenario-events.js";
import { RunPane } from "../../src/ui/components/run-pane.js";
import { buildRunTimeline } from "../../src/ui/format/run-timeline.js";
import { formatRunsTable } from "../../src/ui/format/runs-table.js";
import { textWidth } from "../../src/ui/format/text-width.js";
import { formatTimelineTable } from "../../src/ui/format/timeline-table.js";
import { initialRunPaneState, runPaneReducer } from "../../src/ui/state/run-pane-reducer.js";
import { episodesOf } from "../support/fixtures/run-episodes.js";
import { statewaveAvoidedEvents } from "../support/fixtures/run-events.js";
import { renderAt } from "../support/render-ink.js";

/** The auth-jwt run with CJK, emoji and combining marks in names, the task and the lines. */
function wideEvents(): ScenarioEvent[] {
  return statewaveAvoidedEvents().map((event) => {
    if (event.type === "run-start") {
      return {
        ...event,
        task: "認証を追加する 🔐 and keep the café working",
        agents: event.agents.map((agent) =>
          agent.id === "coder" ? { ...agent, name: "コーダー🤖" } : agent,
        ),
      };
    }
    if (event.type === "agent-log")
      return { ...event, text: `${event.text} — 日本語のログ 🚀 naïve` };
    return event;
  });
}

/** The display column where `needle` starts in `line`. */
function columnOf(line: string, needle: string): number {
  const at = line.indexOf(needle);
  return at < 0 ? -1 : textWidth(line.slice(0, at));
}

describe("wide text keeps columns aligned", () => {
  it.each([80, 120])("timeline table at %i columns", (width) => {
    const timeline = buildRunTimeline("sw-4e5f6a7b", {
      episodes: episodesOf(wideEvents()),
      memories: [],
    });
    const lines = formatTimelineTable(timeline.rows, width);
    const header = lines.find((line) => line.startsWith("Time ")) ?? "";
    const typeColumn = columnOf(header, "Event type");
    const rowLines = lines.filter((line) => /^T[+-]\d/.test(line));
    expect(rowLines.some((line) => line.includes("コーダー🤖"))).toBe(true);
    for (const line of rowLines) {
      expect(textWidth(line)).toBeLessThanOrEqual(width);
      // The type cell starts at the header's column on every row, whatever the agent's name.
      const type = timeline.rows.find((row) => line.includes(row.type))?.type ?? "";
      expect(columnOf(line, `  ${type}`) + 2).toBe(typeColumn);
    }
  });

  it.each([80, 120])("a pane's border stays straight at %i columns", (width) => {
    const pane = wideEvents().reduce(
      (state, event) => runPaneReducer(state, { type: "run-event", event }),
      initialRunPaneState("statewave"),
    );
    const frame = renderAt(<RunPane pane={pane} width={width} logRows={12} spinner="⠋" />, width);
    expect(frame).toContain("日本語のログ");
    for (const line of frame.split("\n")) expect(textWidth(line)).toBe(width);
  });

  it("runs table with a wide task", () => {
    const lines = formatRunsTable(
      [
        {
          runId: "sw-4e5f6a7b",
          mode: "statewave",
          scenario: "custom",
          task: "認証を追加する 🔐 and more text",
        },
        { runId: "nv-0a1b2c3d", mode: "naive", scenario: "auth-jwt", task: "plain task" },
      ],
      60,
    );
    for (const line of lines) expect(textWidth(line)).toBeLessThanOrEqual(60);
    expect(columnOf(lines[1] ?? "", "認証")).toBe(columnOf(lines[0] ?? "", "Task"));
  });
});
