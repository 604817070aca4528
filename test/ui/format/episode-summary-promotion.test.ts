import { describe, expect, it } from "vitest";
import type { Episode } from "../../../src/context/context-store.js";
import { summariseEpisode } from "../../../src/ui/format/episode-summary.js";

const episode = (over: Partial<Episode>): Episode => ({
  id: "ep",
  subjectId: "project",
  source: "dana",
  type: "architectural_decision",
  payload: {},
  metadata: {},
  provenance: {},
  createdAt: "2026-12-01T09:00:00.000Z",
  ...over,
});

describe("timeline rows of a promotion", () => {
  it("says a verdict as a sentence, with the reviewer's class", () => {
    const line = summariseEpisode(
      episode({
        type: "promotion_review",
        payload: {
          verdict: "approved",
          runSubjectId: "monday",
          memoryId: "mem-1",
          status: "conflict",
          target: "legacy-cache",
        },
        metadata: { authority: "user" },
      }),
    );
    expect(line).toBe("[user] approved legacy-cache from monday (conflict)");
  });

  it("names the run a promoted decision came from, and who approved it", () => {
    const line = summariseEpisode(
      episode({
        payload: { content: "Keep legacy-cache", target: "legacy-cache" },
        metadata: { promotion: { subjectId: "monday", memoryId: "mem-1", approvedBy: "dana" } },
      }),
    );
    expect(line).toBe("Keep legacy-cache (promoted from monday, approved by dana)");
  });

  it("leaves other decisions as they were", () => {
    expect(summariseEpisode(episode({ payload: { content: "Keep legacy-cache" } }))).toBe(
      "Keep legacy-cache",
    );
  });
});
