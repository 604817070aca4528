import { describe, expect, it } from "vitest";
import type { Episode, JsonObject, Memory } from "../../src/context/context-store.js";
import {
  type EpisodeCandidate,
  type MemoryCandidate,
  rankContext,
  searchTerms,
  textTerms,
} from "../../src/context/rank-context.js";

function candidate(
  sequence: number,
  kind: string,
  content: string,
  fields: { confidence?: number; bm25?: number | null; metadata?: JsonObject } = {},
): MemoryCandidate {
  const memory: Memory = {
    id: `m${sequence}`,
    subjectId: "s",
    kind,
    content,
    summary: content,
    confidence: fields.confidence ?? 0.5,
    validFrom: "2030-01-01T00:00:00.000Z",
    validTo: null,
    sourceEpisodeIds: [`source-${sequence}`],
    metadata: fields.metadata ?? { source: `agent-${sequence}` },
    status: "active",
    createdAt: "2030-01-01T00:00:00.000Z",
    updatedAt: "2030-01-01T00:00:00.000Z",
  };
  return { memory, sequence, bm25: fields.bm25 ?? null };
}

function episode(
  sequence: number,
  payload: JsonObject,
  sessionId: string | null = null,
): EpisodeCandidate {
  const value: Episode = {
    id: `e${sequence}`,
    subjectId: "s",
    source: "dev",
    type: "message",
    payload,
    metadata: {},
    provenance: {},
    sessionId,
    createdAt: `2030-01-01T00:00:${String(sequence).padStart(2, "0")}.000Z`,
  };
  return { episode: value, sequence };
}

const base = { subjectId: "s", task: "zzz", maxTokens: 4000, episodes: [] };

/** The ids of the facts, in score order. */
function rankedIds(memories: MemoryCandidate[], task = "zzz"): string[] {
  return rankContext({ ...base, task, memories }).facts.map((memory) => memory.id);
}

describe("textTerms", () => {
  it.each([
    ["folds accents and case", "Café RÉSUMÉ naïve", ["cafe", "resume", "naive"]],
    [
      "splits on anything not a letter or digit",
      "jwt-auth/v2_login",
      ["jwt", "auth", "v2", "login"],
    ],
    [
      "drops one-letter words and stop words, keeps two-letter ones",
      "a b ui of x db",
      ["ui", "db"],
    ],
    ["keeps letters of any script", "Über straße 東京", ["uber", "straße", "東京"]],
    ["folds accents in text without one ASCII character", "Éé", ["ee"]],
  ])("%s", (_, text, terms) => {
    expect(textTerms(text)).toEqual(terms);
  });
});

describe("searchTerms", () => {
  const words = Array.from({ length: 20 }, (_, index) => `word${index}`);

  it("keeps the first 16 distinct words by default", () => {
    expect(searchTerms(words.join(" "))).toEqual(words.slice(0, 16));
  });

  it.each([
    [3, words.slice(0, 3)],
    [20, words],
    [25, words],
  ])("keeps at most %i words", (max, expected) => {
    expect(searchTerms(words.join(" "), max)).toEqual(expected);
  });
});

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

describe("rankContext rendering", () => {
  it("lists procedures apart from facts, in their own section after the notes", () => {
    const bundle = rankContext({
      ...base,
      memories: [
        candidate(1, "procedure", "run the migrations first"),
        candidate(2, "implementation_note", "login form done"),
        candidate(3, "episode_summary", "user asked for login"),
      ],
    });
    expect(bundle.assembledContext).toBe(
      [
        "## Task",
        "zzz",
        "",
        "## Notes",
        "- login form done (agent-2)",
        "",
        "## Procedures",
        "- run the migrations first (agent-1)",
        "",
        "## Recent activity",
        "- user asked for login (agent-3)",
        "",
      ].join("\n"),
    );
    expect(bundle.facts.map((memory) => memory.id)).toEqual(["m2", "m3"]);
    expect(bundle.procedures.map((memory) => memory.id)).toEqual(["m1"]);
    expect(bundle.provenance).toEqual({
      fact_ids: ["m2"],
      summary_ids: ["m3"],
      procedure_ids: ["m1"],
      episode_ids: [],
    });
  });

  it("tells recent activity oldest first, summaries and raw episodes alike", () => {
    const bundle = rankContext({
      ...base,
      memories: [
        candidate(5, "episode_summary", "second summary"),
        candidate(1, "episode_summary", "first summary", { confidence: 1 }),
      ],
      episodes: [episode(9, { content: "latest" }), episode(7, { content: "earlier" })],
    });
    expect(bundle.assembledContext).toContain(
      [
        "## Recent activity",
        "- first summary (agent-1)",
        "- second summary (agent-5)",
        "- [dev/message] earlier",
        "- [dev/message] latest",
        "",
      ].join("\n"),
    );
    expect(bundle.episodes.map((item) => item.id)).toEqual(["e7", "e9"]);
  });

  it("keeps the other sections in score order, not oldest first", () => {
    const bundle = rankContext({
      ...base,
      memories: [
        candidate(1, "implementation_note", "older"),
        candidate(2, "implementation_note", "newer"),
      ],
    });
    expect(bundle.assembledContext).toContain("## Notes\n- newer (agent-2)\n- older (agent-1)\n");
  });

  it("writes a memory without a named source as its text alone", () => {
    const bundle = rankContext({
      ...base,
      memories: [
        candidate(1, "implementation_note", "no source", { metadata: {} }),
        candidate(2, "implementation_note", "empty source", { metadata: { source: "" } }),
        candidate(3, "implementation_note", "odd source", { metadata: { source: 3 } }),
      ],
    });
    expect(bundle.assembledContext).toContain("- no source\n");
    expect(bundle.assembledContext).toContain("- empty source\n");
    expect(bundle.assembledContext).toContain("- odd source\n");
  });

  it("cuts a memory at 500 code points and an episode at 150", () => {
    const bundle = rankContext({
      ...base,
      memories: [candidate(1, "implementation_note", "é".repeat(600), { metadata: {} })],
      episodes: [episode(2, { content: "ü".repeat(200) })],
    });
    expect(bundle.assembledContext).toContain(`\n- ${"é".repeat(500)}\n`);
    expect(bundle.assembledContext).toContain(`\n- [dev/message] ${"ü".repeat(150)}\n`);
  });

  it("says when an episode has no text", () => {
    const bundle = rankContext({ ...base, memories: [], episodes: [episode(1, {})] });
    expect(bundle.assembledContext).toBe(
      "## Task\nzzz\n\n## Recent activity\n- [dev/message] (no text content)\n",
    );
  });

  it.each([
    ["a tab", "use\tjwt"],
    ["a newline", "use\njwt"],
    ["a no-break space", "use\u00a0jwt"],
  ])("replaces a single whitespace that is not a space (%s)", (_, content) => {
    const bundle = rankContext({
      ...base,
      memories: [candidate(1, "implementation_note", content, { metadata: {} })],
    });
    expect(bundle.assembledContext).toContain("\n- use jwt\n");
  });

  it.each([
    ["at the start", "  leading", " leading"],
    ["at the end", "trailing  ", "trailing "],
  ])("collapses a run of spaces %s", (_, content, line) => {
    const bundle = rankContext({
      ...base,
      memories: [candidate(1, "implementation_note", content, { metadata: {} })],
    });
    expect(bundle.assembledContext).toContain(`\n- ${line}\n`);
  });

  it("leaves text with single spaces as it is", () => {
    const bundle = rankContext({
      ...base,
      memories: [candidate(1, "implementation_note", "a b  c", { metadata: {} })],
    });
    expect(bundle.assembledContext).toContain("\n- a b c\n");
  });
});

describe("rankContext budget", () => {
  it("counts each section header once, and fills the budget exactly", () => {
    // "## Task\nzzz\n" 3 tokens, "\n## Notes\n" 3, each "- nNxx\n" 2: three notes are 3 + 3 + 6.
    const memories = [1, 2, 3, 4].map((sequence) =>
      candidate(sequence, "implementation_note", `n${sequence}xx`, { metadata: {} }),
    );
    const bundle = rankContext({ ...base, maxTokens: 12, memories });
    expect(bundle.facts.map((memory) => memory.id)).toEqual(["m4", "m3", "m2"]);
    expect(bundle.tokenEstimate).toBeLessThanOrEqual(12);
  });

  it("fits episodes in what the memories left", () => {
    const bundle = rankContext({
      ...base,
      maxTokens: 17,
      memories: [candidate(1, "implementation_note", "n1xx", { metadata: {} })],
      episodes: [episode(2, { content: "a" }), episode(3, { content: "x".repeat(40) })],
    });
    // Task 3 + notes 3 + line 2 = 8; "\n## Recent activity\n" 5 and "- [dev/message] a\n" 5 more.
    expect(bundle.episodes).toEqual([]);
    const roomier = rankContext({
      ...base,
      maxTokens: 18,
      memories: [candidate(1, "implementation_note", "n1xx", { metadata: {} })],
      episodes: [episode(2, { content: "a" }), episode(3, { content: "x".repeat(40) })],
    });
    // Exactly 18: the short one fits, the long one is skipped.
    expect(roomier.episodes.map((item) => item.id)).toEqual(["e2"]);
  });
});

describe("rankContext episodes", () => {
  const header = "## Task\nzzz\n\n## Recent activity\n";

  it("fills the budget with the newest episodes, whatever the input order", () => {
    // Task 3 + "\n## Recent activity\n" 5 + one "- [dev/message] eN\n" line 5: room for one.
    const bundle = rankContext({
      ...base,
      maxTokens: 13,
      memories: [],
      episodes: [
        episode(1, { content: "e1" }),
        episode(3, { content: "e3" }),
        episode(2, { content: "e2" }),
      ],
    });
    expect(bundle.assembledContext).toBe(`${header}- [dev/message] e3\n`);
  });

  it("counts the section header once for all episodes", () => {
    // 3 + 5 + 2 × 5: room for exactly two.
    const bundle = rankContext({
      ...base,
      maxTokens: 18,
      memories: [],
      episodes: [1, 2, 3].map((sequence) => episode(sequence, { content: `e${sequence}` })),
    });
    expect(bundle.assembledContext).toBe(`${header}- [dev/message] e2\n- [dev/message] e3\n`);
  });
});

describe("rankContext sessions", () => {
  it("counts the included episodes per session, first and last time", () => {
    const bundle = rankContext({
      ...base,
      memories: [],
      episodes: [
        episode(3, { content: "three" }, "s1"),
        episode(1, { content: "one" }, "s1"),
        episode(2, { content: "two" }, "s2"),
        episode(4, { content: "four" }),
      ],
    });
    expect(bundle.sessions).toEqual([
      {
        sessionId: "s1",
        episodeCount: 2,
        firstAt: "2030-01-01T00:00:01.000Z",
        lastAt: "2030-01-01T00:00:03.000Z",
      },
      {
        sessionId: "s2",
        episodeCount: 1,
        firstAt: "2030-01-01T00:00:02.000Z",
        lastAt: "2030-01-01T00:00:02.000Z",
      },
    ]);
  });
});
