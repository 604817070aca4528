import { describe, expect, it } from "vitest";
import type { Memory } from "../../src/context/context-store.js";
import { readEditActivity } from "../../src/hooks/edit-activity.js";

function record(
  episodeType: string,
  source: string,
  target: string,
  createdAt: string,
  status: Memory["status"] = "active",
): Memory {
  return {
    id: `${episodeType}-${source}-${target}-${createdAt}`,
    subjectId: "acme.edits",
    kind: "episode_summary",
    content: `${source} did something to ${target}`,
    summary: "",
    confidence: 0.8,
    validFrom: createdAt,
    validTo: null,
    sourceEpisodeIds: [],
    metadata: { source, target, episodeType },
    status,
    createdAt,
    updatedAt: createdAt,
  };
}

describe("readEditActivity", () => {
  const memories = [
    record("edit_claim", "a", "orders", "2026-01-01T10:00:00.000Z"),
    record("edit_claim", "b", "orders", "2026-01-01T10:20:00.000Z"),
    record("edit_claim", "c", "orders", "2026-01-01T10:21:00.000Z", "superseded"),
    record("edit_denied", "c", "denied/billing", "2026-01-01T10:05:00.000Z"),
    record("edit_session", "c", "session", "2026-01-01T09:00:00.000Z"),
    record("state_update", "d", "orders", "2026-01-01T10:00:00.000Z"),
  ];

  it("keeps the claims still live at `now` (a claim lapses after claimMinutes)", () => {
    const activity = readEditActivity(memories, {
      claimMinutes: 15,
      now: Date.parse("2026-01-01T10:25:00.000Z"),
    });
    expect(activity.claims).toEqual([
      {
        module: "orders",
        agent: "b",
        description: "b did something to orders",
        at: "2026-01-01T10:20:00.000Z",
        expiresAt: "2026-01-01T10:35:00.000Z",
      },
    ]);
  });

  it("keeps every claim without a `now`, and reads refusals and session starts", () => {
    const activity = readEditActivity(memories, { claimMinutes: 15 });
    expect(activity.claims.map((claim) => claim.agent)).toEqual(["a", "b"]);
    expect(activity.denials).toEqual([
      {
        module: "billing",
        agent: "c",
        description: "c did something to denied/billing",
        at: "2026-01-01T10:05:00.000Z",
      },
    ]);
    expect([...activity.sessionStarts]).toEqual([["c", "2026-01-01T09:00:00.000Z"]]);
  });
});
