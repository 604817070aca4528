import { describe, expect, it } from "vitest";
import {
  draftOfEpisode,
  planEpisode,
  supersedeCandidateOf,
} from "../../src/context/compile-plan.js";

/** A conversation episode that compiles to a summary with a target and two profile facts. */
const episode = {
  id: "ep-2",
  type: "conversation",
  source: "support-bot",
  payload: JSON.stringify({
    target: "customer",
    messages: [{ role: "user", content: "My name is Alice Chen. I work at Globex Corporation." }],
  }),
  metadata: "{}",
  provenance: "{}",
  created_at: "2026-01-01T00:00:02.000Z",
};

describe("planEpisode", () => {
  const drafted = draftOfEpisode(episode);
  let next = 0;
  const settings = {
    subjectId: "s",
    now: "2026-01-01T00:00:03.000Z",
    generateId: () => {
      next += 1;
      return `m-${next}`;
    },
  };

  it("supersedes the writer's own memory, contradicts another's, then inserts the memory and its facts", () => {
    if (!drafted) throw new Error("the conversation should compile");
    const own = { candidate: supersedeCandidateOf("old-own", { source: "support-bot" }), row: 1 };
    const other = { candidate: supersedeCandidateOf("old-other", { source: "someone" }), row: 2 };
    next = 0;
    const plan = planEpisode(episode, drafted, [own, other], settings);
    expect(
      plan.steps.map((step) => (step.type === "supersede" ? step.old.row : step.memory.id)),
    ).toEqual([1, "m-1", "m-2", "m-3"]);
    expect(plan.stillActive).toEqual([other]);
    expect(plan.memory.metadata.contradicts).toEqual(["old-other"]);
    expect(plan.validFrom).toBe(episode.created_at);
    // The facts have no target: they dispute nothing, whatever the summary contradicts.
    expect(plan.facts.map((fact) => [fact.kind, fact.metadata.contradicts])).toEqual([
      ["profile_fact", undefined],
      ["profile_fact", undefined],
    ]);
  });

  it("is undefined for an episode that carries no knowledge", () => {
    expect(draftOfEpisode({ ...episode, payload: "{}" })).toBeUndefined();
  });
});
