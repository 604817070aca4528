import { describe, expect, it } from "vitest";
import { SubjectWatchView } from "../../../src/ui/components/subject-watch-view.js";
import { buildSubjectView } from "../../../src/ui/format/subject-view.js";
import { episodesOf } from "../../support/fixtures/run-episodes.js";
import { naiveCollisionEvents } from "../../support/fixtures/run-events.js";
import { renderInk } from "../../support/render-ink.js";

describe("SubjectWatchView", () => {
  it("shows who is working on what in a run still going, within the terminal's rows", () => {
    const events = naiveCollisionEvents();
    const building = events.findIndex((event) => event.type === "module-start");
    const view = buildSubjectView({
      subjectId: "nv-0a1b2c3d",
      episodes: episodesOf(events.slice(0, building + 1)),
      memories: [],
    });
    const app = renderInk(<SubjectWatchView view={view} rows={24} />);
    const frame = app.lastFrame();
    expect(frame).toContain("Working on (1)");
    expect(frame).toMatch(/Coder building \S+/);
    expect(frame).toContain("watching for new writes · q quit");
    expect(frame.split("\n").length).toBeLessThanOrEqual(23);
  });

  it("a subject with nothing written yet says so while it waits for the first write", () => {
    const view = buildSubjectView({ subjectId: "my-repo", episodes: [], memories: [] });
    const app = renderInk(<SubjectWatchView view={view} rows={24} />);
    expect(app.lastFrame()).toContain(
      "nothing written to my-repo yet · watching for the first write · q quit",
    );
  });
});
