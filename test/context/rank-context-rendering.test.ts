import { describe, expect, it } from "vitest";
import { rankContext } from "../../src/context/rank-context.js";
import { candidate, episode } from "./support/rank-candidates.js";

const base = { subjectId: "s", task: "zzz", maxTokens: 4000, episodes: [] };

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
