import { describe, expect, it } from "vitest";
import { buildRunTimeline } from "../../src/ui/format/run-timeline.js";
import { initialInspectorState, inspectorReducer } from "../../src/ui/state/inspector-reducer.js";
import { TimelineInspectorApp } from "../../src/ui/timeline-inspector-app.js";
import { episodesOf } from "../support/fixtures/run-episodes.js";
import { statewaveAvoidedEvents } from "../support/fixtures/run-events.js";
import { keys, renderInk } from "../support/render-ink.js";
import { waitFor } from "../support/wait-for.js";

function timeline() {
  return buildRunTimeline("sw-4e5f6a7b", {
    episodes: episodesOf(statewaveAvoidedEvents()),
    memories: [],
  });
}

describe("inspectorReducer", () => {
  it("scrolls within bounds; scrolling up stops following", () => {
    let state = initialInspectorState(true);
    state = inspectorReducer(state, { type: "rows-change", maxScroll: 10 });
    expect(state).toMatchObject({ scroll: 10, follow: true });
    state = inspectorReducer(state, { type: "scroll", delta: -3, maxScroll: 10 });
    expect(state).toMatchObject({ scroll: 7, follow: false });
    state = inspectorReducer(state, { type: "scroll", delta: 99, maxScroll: 10 });
    expect(state.scroll).toBe(10);
    state = inspectorReducer(state, { type: "rows-change", maxScroll: 20 });
    expect(state.scroll).toBe(10);
  });

  it("cycles agents through all of them and back to all", () => {
    let state = initialInspectorState();
    const seen: number[] = [];
    for (let step = 0; step < 4; step++) {
      state = inspectorReducer(state, { type: "agent-cycle", count: 3 });
      seen.push(state.agentIndex);
    }
    expect(seen).toEqual([0, 1, 2, -1]);
  });

  it("types a search after / and applies it on enter", () => {
    let state = inspectorReducer(initialInspectorState(), { type: "search-start" });
    for (const text of ["s", "k", "x"])
      state = inspectorReducer(state, { type: "search-type", text });
    state = inspectorReducer(state, { type: "search-erase" });
    state = inspectorReducer(state, { type: "search-apply" });
    expect(state).toMatchObject({ search: "sk", draft: undefined });
  });
});

describe("TimelineInspectorApp", () => {
  it("shows the table in one clock and takes the pager keys", async () => {
    const app = renderInk(<TimelineInspectorApp timeline={timeline()} />);
    await waitFor(() => expect(app.lastFrame()).toMatch(/Time\s+Agent\s+Event type\s+Content/));
    expect(app.lastFrame()).toContain("all agents");
    expect(app.lastFrame()).toMatch(/↑↓ PgUp PgDn g G scroll · \/ search · a agent · f follow/);
    // a: one agent at a time, in the run's order.
    await app.press("a");
    await waitFor(() => expect(app.lastFrame()).toContain("agent Planner"));
    expect(app.lastFrame()).not.toMatch(/Coder\s+module-skip/);
    await app.press("a");
    await waitFor(() => expect(app.lastFrame()).toContain("agent Coder"));
    await app.press("a");
    await app.press("a");
    await waitFor(() => expect(app.lastFrame()).toContain("all agents"));
    // /: search, enter applies.
    await app.press("/");
    await waitFor(() => expect(app.lastFrame()).toContain("enter search"));
    for (const letter of "Skip") await app.press(letter);
    await waitFor(() => expect(app.lastFrame()).toContain("/Skip"));
    await app.press(keys.enter);
    await waitFor(() => expect(app.lastFrame()).toContain('search "Skip"'));
    expect(app.lastFrame()).toMatch(/T\+2\.5s\s+Coder\s+module-skip/);
    expect(app.lastFrame()).toContain("1 rows");
    // G and g jump to the end and back; f follows.
    await app.press("G");
    await app.press("g");
    await app.press("f");
    await waitFor(() => expect(app.lastFrame()).toContain("following"));
  });
});
