import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { EmbeddedStore } from "../../../src/context/embedded/embedded-store.js";
import { SharedContext } from "../../../src/context/shared-context.js";
import { buildRunTimeline } from "../../../src/ui/format/run-timeline.js";
import { buildSubjectView, formatSubjectView } from "../../../src/ui/format/subject-view.js";
import {
  formatTimelineSections,
  formatTimelineTable,
} from "../../../src/ui/format/timeline-table.js";

/** `watch` and `timeline` lines of a person's decision disputed by an agent's informed one. */
describe("authority in the watch and timeline lines", () => {
  let store: EmbeddedStore;
  let shared: SharedContext;

  beforeEach(async () => {
    store = new EmbeddedStore({ path: ":memory:" });
    shared = new SharedContext({ store, subjectId: "repo" });
    await shared.decide("alice", "Sessions stay server-side", {
      kind: "architectural_decision",
      target: "session-storage",
      authority: "user",
    });
    await shared.beforeActing("planner", "session storage");
    await shared.decide("planner", "Move sessions into JWT cookies", {
      kind: "architectural_decision",
      target: "session-storage",
    });
  });
  afterEach(async () => {
    await shared.close();
    await store.close();
  });

  it("watch: names a non-default authority on a decision and on each side of the dispute", async () => {
    const lines = formatSubjectView(buildSubjectView(await store.getTimeline("repo")));
    expect(lines).toContain("  Alice (user) on session-storage: Sessions stay server-side");
    expect(lines).toContain("  Planner on session-storage: Move sessions into JWT cookies");
    expect(lines).toContain(
      "  session-storage: Alice (user) says Sessions stay server-side vs Planner says Move sessions into JWT cookies",
    );
  });

  it("timeline: the episode row and the final memory state say the authority; the dispute names the other side's", async () => {
    const timeline = buildRunTimeline("repo", await store.getTimeline("repo"));
    const table = formatTimelineTable(timeline.rows, 200).join("\n");
    expect(table).toContain("[user] session-storage: Sessions stay server-side");
    expect(table).not.toContain("[agent]");
    const sections = formatTimelineSections(timeline, 200);
    expect(sections).toContain(
      "  active      [architectural_decision, confidence 0.90, authority user] Sessions stay server-side",
    );
    expect(sections).toContain(
      "  active      [architectural_decision, confidence 0.90] Move sessions into JWT cookies (disputes alice (user))",
    );
  });

  it("settled by a person: no dispute is shown any more", async () => {
    await shared.beforeActing("alice", "session storage");
    await shared.decide("alice", "Keep server-side sessions", {
      kind: "architectural_decision",
      target: "session-storage",
      authority: "user",
    });
    const view = buildSubjectView(await store.getTimeline("repo"));
    expect(view.disputes).toEqual([]);
    expect(formatSubjectView(view)).toContain(
      "  Alice (user) on session-storage: Keep server-side sessions",
    );
    const sections = formatTimelineSections(
      buildRunTimeline("repo", await store.getTimeline("repo")),
      200,
    );
    expect(sections.join("\n")).not.toContain("(disputes");
  });
});
