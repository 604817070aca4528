import { describe, expect, it } from "vitest";
import { type MemoryCandidate, rankContext } from "../../src/context/rank-context.js";
import { candidate } from "./support/rank-candidates.js";

const base = { subjectId: "s", task: "zzz", maxTokens: 4000, episodes: [] };

/** The ids of the facts, in score order. */
function rankedIds(memories: MemoryCandidate[], task = "zzz"): string[] {
  return rankContext({ ...base, task, memories }).facts.map((memory) => memory.id);
}

describe("rankContext scoring", () => {
  it("ranks by kind priority when nothing else differs", () => {
    const memories = [
      candidate(1, "architectural_decision", "same"),
      candidate(2, "review_finding", "same"),
      candidate(3, "implementation_note", "same"),
      candidate(4, "artifact_ref", "same"),
      candidate(5, "episode_summary", "same"),
      candidate(6, "something_else", "same"),
    ].map((item) => ({ ...item, sequence: 1 }));
    expect(rankedIds(memories)).toEqual(["m1", "m2", "m3", "m4", "m5", "m6"]);
  });

  it("gives a kind named like an Object member the priority of an unknown kind", () => {
    // Same sequence: only the kind tells them apart (a score that is not a number would keep
    // the input order).
    expect(
      rankedIds([
        { ...candidate(2, "constructor", "same"), sequence: 1 },
        candidate(1, "implementation_note", "same"),
      ]),
    ).toEqual(["m1", "m2"]);
  });

  it("counts confidence twice: 0.6 more confidence outranks a kind one step higher", () => {
    expect(
      rankedIds([
        { ...candidate(2, "review_finding", "same", { confidence: 0.4 }), sequence: 1 },
        candidate(1, "implementation_note", "same", { confidence: 1 }),
      ]),
    ).toEqual(["m1", "m2"]);
  });

  it("weighs the share of task words a memory contains", () => {
    expect(
      rankedIds(
        [
          candidate(3, "implementation_note", "login"),
          candidate(2, "implementation_note", "login with jwt"),
          candidate(1, "implementation_note", "unrelated"),
        ],
        "login jwt",
      ),
    ).toEqual(["m2", "m3", "m1"]);
  });

  it("weighs the share of task words, not their count", () => {
    // One of five task words: relevance 0.8, not enough to lift a note over a finding.
    expect(
      rankedIds(
        [
          { ...candidate(2, "implementation_note", "login"), sequence: 1 },
          candidate(1, "review_finding", "unrelated"),
        ],
        "login jwt token expiry refresh",
      ),
    ).toEqual(["m1", "m2"]);
  });

  it("scales bm25 to 0..1 of the best match", () => {
    // Relevance from bm25 alone: 1 for the best match, 0.25 for a quarter of it.
    expect(
      rankedIds(
        [
          candidate(1, "episode_summary", "x", { bm25: -4 }),
          candidate(2, "implementation_note", "x", { bm25: -1 }),
          candidate(3, "review_finding", "x"),
        ].map((item) => ({ ...item, sequence: 1 })),
      ),
    ).toEqual(["m3", "m2", "m1"]);
  });

  it("ranks a person's decision above an agent's later one on the same matter (authority)", () => {
    const decision = (sequence: number, authority?: string) =>
      candidate(sequence, "architectural_decision", "sessions", {
        metadata: authority ? { source: `a${sequence}`, authority } : { source: `a${sequence}` },
      });
    // Without authority the newer one wins on recency; a person's outweighs it.
    expect(rankedIds([decision(1), decision(2)])).toEqual(["m2", "m1"]);
    expect(rankedIds([decision(1, "user"), decision(2)])).toEqual(["m1", "m2"]);
    expect(rankedIds([decision(1, "verified"), decision(2, "speculative")])).toEqual(["m1", "m2"]);
    // A value that is no class counts as the default.
    expect(rankedIds([decision(1, "boss"), decision(2)])).toEqual(["m2", "m1"]);
  });

  it("names a memory's authority in the context when it is not the default", () => {
    const { assembledContext } = rankContext({
      ...base,
      memories: [
        candidate(1, "architectural_decision", "Keep sessions", {
          metadata: { source: "alice", authority: "user" },
        }),
        candidate(2, "architectural_decision", "Use JWT", {
          metadata: { source: "planner", authority: "agent" },
        }),
      ],
    });
    expect(assembledContext).toContain("- Keep sessions (alice, authority: user)\n");
    expect(assembledContext).toContain("- Use JWT (planner)\n");
  });

  it("breaks an exact tie of scores by newer first", () => {
    // 2 + 0 (oldest) + 2 × 0.75 = 2 + 1.5 (newest) + 2 × 0 = 3.5.
    expect(
      rankedIds([
        candidate(1, "implementation_note", "same", { confidence: 0.75 }),
        candidate(3, "implementation_note", "same", { confidence: 0 }),
      ]),
    ).toEqual(["m3", "m1"]);
  });

  it("weighs bm25 relative to the best match", () => {
    // Same words, kind and sequence: only bm25 tells them apart.
    expect(
      rankedIds(
        [
          candidate(3, "implementation_note", "jwt", { bm25: -1 }),
          candidate(2, "implementation_note", "jwt", { bm25: null }),
          candidate(1, "implementation_note", "jwt", { bm25: -4 }),
        ].map((item) => ({ ...item, sequence: 1 })),
        "jwt",
      ),
    ).toEqual(["m1", "m3", "m2"]);
  });

  it("ignores bm25 when no candidate has a negative score", () => {
    // Scores 9, 8.5 and 7.75: a bm25 of 0 must not make the newest one's score NaN (first).
    expect(
      rankedIds(
        [
          candidate(3, "implementation_note", "jwt", { bm25: 0 }),
          candidate(1, "architectural_decision", "jwt", { bm25: null }),
          candidate(2, "implementation_note", "jwt", { bm25: null }),
        ],
        "jwt",
      ),
    ).toEqual(["m1", "m3", "m2"]);
  });

  it("scales recency over the candidates' creation order", () => {
    // m1 is 0.5 more confident but the oldest of a wide range: recency (1.5) outweighs it.
    expect(
      rankedIds([
        candidate(1, "implementation_note", "same", { confidence: 0.75 }),
        candidate(100, "implementation_note", "same", { confidence: 0.5 }),
      ]),
    ).toEqual(["m100", "m1"]);
    // Recency spans the candidates' range, however far from the first row it starts.
    expect(
      rankedIds([
        candidate(100, "implementation_note", "same", { confidence: 0.75 }),
        candidate(101, "implementation_note", "same", { confidence: 0.5 }),
      ]),
    ).toEqual(["m101", "m100"]);
    // ...but not when the ranges are close and a finding outranks a note.
    expect(
      rankedIds([
        candidate(10, "review_finding", "same"),
        candidate(11, "implementation_note", "same"),
        candidate(1, "implementation_note", "same"),
      ]),
    ).toEqual(["m10", "m11", "m1"]);
  });

  it("ranks by kind and recency when the task has no search words", () => {
    expect(
      rankedIds(
        [
          candidate(1, "architectural_decision", "use jwt"),
          candidate(2, "implementation_note", "login form"),
        ],
        "the a",
      ),
    ).toEqual(["m1", "m2"]);
  });

  it("gives a single candidate full recency, whatever its sequence", () => {
    const bundle = rankContext({
      ...base,
      memories: [candidate(7, "implementation_note", "only one")],
    });
    expect(bundle.facts.map((memory) => memory.id)).toEqual(["m7"]);
  });

  it("keeps one candidate per id (the last one given)", () => {
    const first = candidate(1, "implementation_note", "first version");
    const second = { ...candidate(1, "implementation_note", "second version"), sequence: 1 };
    const bundle = rankContext({ ...base, memories: [first, second] });
    expect(bundle.facts.map((memory) => memory.content)).toEqual(["second version"]);
  });
});
