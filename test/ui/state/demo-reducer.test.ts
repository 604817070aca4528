import { describe, expect, it } from "vitest";
import { buildRunTimeline } from "../../../src/ui/format/run-timeline.js";
import {
  bothRunsFinished,
  type DemoState,
  demoReducer,
  initialDemoState,
} from "../../../src/ui/state/demo-reducer.js";
import { naiveCollisionEvents, statewaveAvoidedEvents } from "../../support/fixtures/run-events.js";

function finishedDemo(): DemoState {
  let state = initialDemoState("auth-jwt");
  for (const event of naiveCollisionEvents())
    state = demoReducer(state, { type: "run-event", side: "baseline", event });
  for (const event of statewaveAvoidedEvents())
    state = demoReducer(state, { type: "run-event", side: "shared", event });
  return state;
}

describe("demoReducer", () => {
  it("routes each run's events to its own pane", () => {
    const state = finishedDemo();
    expect(state.panes.baseline.runId).toBe("nv-0a1b2c3d");
    expect(state.panes.shared.runId).toBe("sw-4e5f6a7b");
    expect(bothRunsFinished(state)).toBe(true);
  });

  it("is not finished while one side still runs", () => {
    let state = initialDemoState("auth-jwt");
    for (const event of naiveCollisionEvents())
      state = demoReducer(state, { type: "run-event", side: "baseline", event });
    expect(bothRunsFinished(state)).toBe(false);
    expect(
      bothRunsFinished(demoReducer(state, { type: "run-fail", side: "shared", message: "boom" })),
    ).toBe(true);
  });

  it("restarts with empty panes and a new round, optionally on another scenario", () => {
    const state = finishedDemo();
    const again = demoReducer(state, { type: "restart" });
    expect(again).toMatchObject({ round: 1, scenario: "auth-jwt", view: "panes" });
    expect(again.panes.baseline.lines).toEqual([]);
    expect(demoReducer(again, { type: "restart", scenario: "late-decision" })).toMatchObject({
      round: 2,
      scenario: "late-decision",
    });
  });

  it("opens, loads, scrolls and closes the timeline", () => {
    let state = demoReducer(finishedDemo(), { type: "timeline-open", runId: "sw-4e5f6a7b" });
    expect(state.timeline).toEqual({ status: "loading", runId: "sw-4e5f6a7b" });
    state = demoReducer(state, {
      type: "timeline-load",
      timeline: buildRunTimeline("sw-4e5f6a7b", { episodes: [], memories: [] }),
    });
    state = demoReducer(state, { type: "timeline-scroll", delta: 5, maxScroll: 3 });
    expect(state.timeline).toMatchObject({ status: "ready", scroll: 3 });
    state = demoReducer(state, { type: "timeline-scroll", delta: -10, maxScroll: 3 });
    expect(state.timeline).toMatchObject({ scroll: 0 });
    expect(demoReducer(state, { type: "view-close" }).view).toBe("panes");
  });

  it("moves the scenario picker around its list", () => {
    let state = demoReducer(initialDemoState("auth-jwt"), {
      type: "picker-open",
      names: ["auth-jwt", "late-decision", "two-coders"],
    });
    state = demoReducer(state, { type: "picker-move", delta: -1, count: 3 });
    expect(state).toMatchObject({ view: "scenario-picker", pickerIndex: 2 });
    expect(demoReducer(state, { type: "picker-move", delta: 1, count: 3 }).pickerIndex).toBe(0);
  });
});
