import { describe, expect, it } from "vitest";
import type { ScenarioEvent } from "../../../src/scenario/scenario-events.js";
import { plainEventLine } from "../../../src/ui/format/event-line.js";
import { initialRunPaneState, runPaneReducer } from "../../../src/ui/state/run-pane-reducer.js";
import { naiveCollisionEvents, statewaveAvoidedEvents } from "../../support/fixtures/run-events.js";

function fold(events: readonly ScenarioEvent[]) {
  return events.reduce(
    (state, event) => runPaneReducer(state, { type: "run-event", event }),
    initialRunPaneState("statewave"),
  );
}

describe("runPaneReducer", () => {
  it("takes the run id and agents from run-start, everyone waiting", () => {
    const state = fold(statewaveAvoidedEvents().slice(0, 1));
    expect(state.runId).toBe("sw-4e5f6a7b");
    expect(state.agents.map((agent) => agent.name)).toEqual(["Planner", "Coder", "Reviewer"]);
    expect(Object.values(state.statuses).map((status) => status.activity)).toEqual([
      "waiting",
      "waiting",
      "waiting",
    ]);
    expect(state.lines).toEqual([]);
  });

  it("shows a busy status while an agent builds, and done after agent-end", () => {
    const events = naiveCollisionEvents();
    const building = fold(
      events.slice(0, events.findIndex((event) => event.type === "module-start") + 1),
    );
    expect(building.statuses.coder).toMatchObject({
      activity: "building legacy-session-token",
      busy: true,
    });
    const finished = fold(events);
    expect(finished.statuses.coder).toMatchObject({ activity: "done", busy: false });
    expect(finished.summary?.collision).toBe(true);
  });

  it("keeps one line per event except the run's own start and end", () => {
    const events = statewaveAvoidedEvents();
    const state = fold(events);
    expect(state.lines).toHaveLength(events.length - 2);
    expect(state.lines.map(plainEventLine)).toContain(
      "[Coder] Skipping → legacy-session-token (deprecated by Planner)",
    );
  });

  it("records a failure", () => {
    const state = runPaneReducer(initialRunPaneState("naive"), {
      type: "run-fail",
      message: "model timed out",
    });
    expect(state.error).toBe("model timed out");
  });
});
