import { describe, expect, it } from "vitest";
import type { ScenarioEvent } from "../../../src/scenario/scenario-events.js";
import { ComparisonView } from "../../../src/ui/components/comparison-view.js";
import { RunPane } from "../../../src/ui/components/run-pane.js";
import { TimelineView } from "../../../src/ui/components/timeline-view.js";
import { VerdictBox } from "../../../src/ui/components/verdict-box.js";
import { buildRunTimeline } from "../../../src/ui/format/run-timeline.js";
import { textWidth } from "../../../src/ui/format/text-width.js";
import { formatTimelineReport } from "../../../src/ui/format/timeline-table.js";
import { verdictFor } from "../../../src/ui/format/verdict.js";
import {
  type DemoState,
  demoReducer,
  initialDemoState,
} from "../../../src/ui/state/demo-reducer.js";
import { initialRunPaneState, runPaneReducer } from "../../../src/ui/state/run-pane-reducer.js";
import { renderDemoScreen } from "../../support/demo-screen.js";
import { episodesOf } from "../../support/fixtures/run-episodes.js";
import { naiveCollisionEvents, statewaveAvoidedEvents } from "../../support/fixtures/run-events.js";
import { renderAt } from "../../support/render-ink.js";

function pane(events: readonly ScenarioEvent[], mode: "naive" | "statewave") {
  return events.reduce(
    (state, event) => runPaneReducer(state, { type: "run-event", event }),
    initialRunPaneState(mode),
  );
}

function demo(naiveCount: number, statewaveCount: number): DemoState {
  let state = initialDemoState("auth-jwt");
  for (const event of naiveCollisionEvents().slice(0, naiveCount))
    state = demoReducer(state, { type: "run-event", side: "baseline", event });
  for (const event of statewaveAvoidedEvents().slice(0, statewaveCount))
    state = demoReducer(state, { type: "run-event", side: "shared", event });
  return state;
}

function screen(state: DemoState, columns: number, rows = 40) {
  return renderDemoScreen(state, { columns, rows, timelineHeight: 20 });
}

function expectFits(frame: string, columns: number) {
  for (const line of frame.split("\n")) expect(textWidth(line)).toBeLessThanOrEqual(columns);
}

function summaryOf(events: ScenarioEvent[]) {
  const end = events.at(-1);
  if (end?.type !== "run-end") throw new Error("fixture must end with run-end");
  return end.summary;
}

describe("RunPane", () => {
  it.each([80, 120])(
    "shows agent lines and a status row per agent while running (%i columns)",
    (columns) => {
      const events = statewaveAvoidedEvents();
      const running = pane(
        events.slice(0, events.findIndex((event) => event.type === "module-start") + 1),
        "statewave",
      );
      const frame = renderAt(
        <RunPane pane={running} width={columns} logRows={12} spinner="⠋" />,
        columns,
      );
      expect(frame).toContain("Shared context");
      expect(frame).toContain("sw-4e5f6a7b");
      expect(frame).toContain("[Coder] Skipping → legacy-session-token (deprecated by Planner)");
      expect(frame).toMatch(/Coder\s+⠋ building jwt-issuer/);
      expect(frame).toMatch(/Reviewer\s+· waiting/);
      expectFits(frame, columns);
    },
  );

  it("shows the newest lines only when the log is longer than its rows", () => {
    const frame = renderAt(
      <RunPane pane={pane(naiveCollisionEvents(), "naive")} width={80} logRows={3} spinner="⠋" />,
      80,
    );
    expect(frame).toContain("[Reviewer] Done");
    expect(frame).not.toContain("Planning modules");
  });
});

describe("VerdictBox", () => {
  it.each([80, 120])("boxes the collision verdict and its waste (%i columns)", (columns) => {
    const events = naiveCollisionEvents();
    const frame = renderAt(<VerdictBox verdict={verdictFor(summaryOf(events), events)} />, columns);
    expect(frame.replace(/[║\s]+/g, " ")).toContain(
      "COLLISION DETECTED — work built in vain; the wasted compute cannot be recovered",
    );
    expect(frame).toContain("Wasted: 1 module built in vain, 2,400 tokens, 12.0s");
    expect(frame.split("\n")[0]).toMatch(/^╔═+╗$/);
    expectFits(frame, columns);
  });

  it("boxes the conflict-avoided verdict", () => {
    const events = statewaveAvoidedEvents();
    const frame = renderAt(<VerdictBox verdict={verdictFor(summaryOf(events), events)} />, 120);
    expect(frame).toContain(
      "CONFLICT AVOIDED — the Coder read the Planner's decision before acting",
    );
  });
});

describe("ComparisonView", () => {
  it.each([80, 120])("puts each side's waste in its own column (%i columns)", (columns) => {
    const frame = renderAt(
      <ComparisonView
        naive={summaryOf(naiveCollisionEvents())}
        statewave={summaryOf(statewaveAvoidedEvents())}
        width={columns}
      />,
      columns,
    );
    const lines = frame.split("\n");
    const header = lines.find((line) => line.includes("Messages only")) ?? "";
    const wasted = lines.find((line) => line.startsWith("Wasted")) ?? "";
    // Values sit under their column headers.
    expect(wasted.indexOf("2,400")).toBe(header.indexOf("Messages only"));
    expect(wasted.lastIndexOf("0 tokens")).toBe(header.indexOf("Shared context"));
    expect(frame).toContain("Shared context saved 2,400 tokens and 12.0s of wasted work.");
    expectFits(frame, columns);
  });
});

describe("DemoScreen layout", () => {
  it("puts the panes side by side at 120 columns", () => {
    const frame = screen(demo(99, 99), 120);
    const titleLine = frame.split("\n").find((line) => line.includes("Messages only"));
    expect(titleLine).toContain("Shared context");
    expect(frame).toContain("Comparison");
    expectFits(frame, 120);
    expect(frame.split("\n").length).toBeLessThan(40);
    expect(frame).toMatchSnapshot();
  });

  it("stacks the panes at 80 columns and still fits the screen", () => {
    const frame = screen(demo(99, 99), 80);
    const lines = frame.split("\n");
    const naiveAt = lines.findIndex((line) => line.includes("Messages only"));
    const statewaveAt = lines.findIndex((line) => line.includes("Shared context"));
    expect(statewaveAt).toBeGreaterThan(naiveAt);
    expect(lines[naiveAt]).not.toContain("Shared context");
    expect(frame).toContain("COLLISION DETECTED");
    expect(frame).toContain("CONFLICT AVOIDED");
    expectFits(frame, 80);
    expect(lines.length).toBeLessThan(40);
    expect(frame).toMatchSnapshot();
  });

  it("shows no verdict or comparison while the runs are in progress", () => {
    const frame = screen(demo(6, 6), 120);
    expect(frame).not.toContain("COLLISION DETECTED");
    expect(frame).not.toContain("Comparison");
    expect(frame).toContain("t timeline · r run again · s scenario · ? keys · q quit");
  });
});

describe("TimelineView", () => {
  it.each([80, 120])("shows the table header and rows within %i columns", (columns) => {
    const lines = formatTimelineReport(
      buildRunTimeline("sw-4e5f6a7b", {
        episodes: episodesOf(statewaveAvoidedEvents()),
        memories: [],
      }),
      columns,
    );
    const frame = renderAt(<TimelineView lines={lines} scroll={0} height={30} />, columns);
    // One clock: the run's own, since its start.
    expect(frame).toMatch(/Time\s+Agent\s+Event type\s+Content/);
    expect(frame).toMatch(/T\+2\.5s\s+Coder\s+module-skip\s+Skipping →/);
    expect(frame).toContain("Time: since the run started, on the run's own clock");
    expect(frame).toContain(`lines 1–${Math.min(30, lines.length)} of ${lines.length}`);
    expectFits(frame, columns);
  });
});
