import { describe, expect, it } from "vitest";
import type { Episode } from "../../../src/context/context-store.js";
import { buildRunTimeline } from "../../../src/ui/format/run-timeline.js";
import { TimelineRowPager } from "../../../src/ui/format/timeline-pages.js";
import { episodesOf } from "../../support/fixtures/run-episodes.js";
import { statewaveAvoidedEvents } from "../../support/fixtures/run-events.js";

/** A run's episodes with plain (non-event) episodes between them, as a real subject has. */
function mixedEpisodes(): Episode[] {
  return episodesOf(statewaveAvoidedEvents()).flatMap((episode, index) => [
    episode,
    {
      ...episode,
      id: `note-${index}`,
      type: "implementation_note",
      source: "coder",
      payload: { content: `note ${index}` },
    },
  ]);
}

function inPages(episodes: readonly Episode[], size: number): Episode[][] {
  const pages: Episode[][] = [];
  for (let start = 0; start < episodes.length; start += size) {
    pages.push(episodes.slice(start, start + size));
  }
  return pages;
}

describe("TimelineRowPager", () => {
  const episodes = mixedEpisodes();

  it.each([1, 2, 7, 100])(
    "builds, %i episodes at a time, the rows the whole run's build has",
    (size) => {
      const whole = buildRunTimeline("sw-run", { episodes, memories: [] }).rows;
      const pager = new TimelineRowPager("sw-run");
      const paged = inPages(episodes, size).flatMap((page) => pager.rowsOf(page));
      expect(paged).toEqual(whole);
      expect(pager.sawRunStart).toBe(true);
    },
  );

  it("applies the filter page by page as the whole build does", () => {
    const filter = { agent: "coder" };
    const whole = buildRunTimeline("sw-run", { episodes, memories: [] }, filter).rows;
    const pager = new TimelineRowPager("sw-run", filter);
    expect(inPages(episodes, 3).flatMap((page) => pager.rowsOf(page))).toEqual(whole);
  });

  it("says a subject without a run-start is not a run", () => {
    const pager = new TimelineRowPager("notes");
    pager.rowsOf(episodes.filter((episode) => episode.type === "implementation_note"));
    expect(pager.sawRunStart).toBe(false);
  });
});
