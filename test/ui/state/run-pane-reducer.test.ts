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

describe("runPaneReducer › moment", () => {
  const fold = (events: readonly ScenarioEvent[], mode: "naive" | "statewave") =>
    events.reduce(
      (state, event) => runPaneReducer(state, { type: "run-event", event }),
      initialRunPaneState(mode),
    );

  it("flags a build that starts after a decision retired its module, in red", () => {
    const events = naiveCollisionEvents();
    const at = events.findIndex(
      (event) => event.type === "module-start" && event.module === "legacy-session-token",
    );
    const state = fold(events.slice(0, at + 1), "naive");
    expect(state.moment).toMatchObject({ kind: "contradiction", module: "legacy-session-token" });
    expect(state.moment?.text).toMatch(
      /^✖ Coder builds legacy-session-token although Planner deprecated it at T\+/,
    );
    expect(state.lines.at(-1)).toMatchObject({
      tone: "error",
      text: "Building → legacy-session-token ✖ contradicts Planner's decision",
    });
  });

  it("flags a build already running when the decision lands", () => {
    const start = naiveCollisionEvents()[0] as ScenarioEvent;
    const base = { runId: start.runId };
    const state = fold(
      [
        start,
        {
          ...base,
          at: 100,
          type: "module-start",
          agentId: "coder",
          module: "cache",
          estimatedMs: 1,
        },
        {
          ...base,
          at: 200,
          type: "decision-write",
          agentId: "planner",
          kind: "architectural_decision",
          target: "cache",
          value: "deprecate",
          content: "Deprecate cache.",
        },
      ],
      "naive",
    );
    expect(state.moment).toMatchObject({ kind: "contradiction", module: "cache" });
    expect(state.lines[0]).toMatchObject({ tone: "error" });
  });

  it("holds a skip until the verdict", () => {
    const events = statewaveAvoidedEvents();
    const skip = events.findIndex((event) => event.type === "module-skip");
    const state = fold(events.slice(0, skip + 4), "statewave");
    expect(state.moment).toMatchObject({ kind: "prevented", module: "legacy-session-token" });
    expect(state.moment?.text).toMatch(
      /^✔ Coder skipped legacy-session-token at T\+.*: deprecated by Planner$/,
    );
  });
});
