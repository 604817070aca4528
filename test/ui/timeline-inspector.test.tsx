import { describe, expect, it } from "vitest";
import { inspectorPage, nextSectionLine } from "../../src/ui/format/inspector-lines.js";
import { buildRunTimeline } from "../../src/ui/format/run-timeline.js";
import { formatTimelineSections } from "../../src/ui/format/timeline-table.js";
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

  it("has every section piped output has, and s jumps from one to the next", async () => {
    const page = inspectorPage(timeline(), { width: 100, clock: "scenario", search: "" });
    const titles = page.sectionStarts.map((index) => page.lines[index]?.text ?? "");
    expect(titles).toEqual([
      expect.stringMatching(/^Final memory state: /),
      "Escalations",
      "Who read what",
    ]);
    // The same lines as `timeline | cat` after its table.
    expect(page.lines.slice(page.sectionStarts[0]! - 1).map((line) => line.text)).toEqual(
      formatTimelineSections(timeline(), 100),
    );

    const app = renderInk(<TimelineInspectorApp timeline={timeline()} />);
    await waitFor(() => expect(app.lastFrame()).toMatch(/Time\s+Agent\s+Event type\s+Content/));
    expect(app.lastFrame()).toContain("+ 3 sections");
    // This run is short: the first jump lands on the last page, where all three sections are.
    await app.press("s");
    await waitFor(() => expect(app.lastFrame()).toMatch(/Final memory state: \d+ active/));
    expect(app.lastFrame()).toContain("Escalations");
    expect(app.lastFrame()).toContain("Who read what");
    expect(app.lastFrame()).toMatch(/Coder read \d+ memor/);
    // The next jump goes back to the top of the table.
    await app.press("s");
    await waitFor(() => expect(app.lastFrame()).toMatch(/T\+0\.0s\s+Run\s+run-start/));
  });

  it("nextSectionLine: each section in turn, clamped to the last page, then the top", () => {
    const page = { heading: [], lines: [], rowCount: 10, sectionStarts: [12, 20, 30] };
    expect(nextSectionLine(page, 0, 40)).toBe(12);
    expect(nextSectionLine(page, 12, 40)).toBe(20);
    expect(nextSectionLine(page, 20, 40)).toBe(30);
    expect(nextSectionLine(page, 30, 40)).toBe(0);
    // The last sections are on the last page: one jump shows them, the next goes back up.
    expect(nextSectionLine(page, 12, 18)).toBe(18);
    expect(nextSectionLine(page, 18, 18)).toBe(0);
  });
});
