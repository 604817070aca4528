import { describe, expect, it } from "vitest";
import type { Episode, Memory } from "../../src/context/context-store.js";
import {
  estimateTokens,
  type MemoryCandidate,
  rankContext,
  searchTerms,
} from "../../src/context/rank-context.js";

function memory(
  sequence: number,
  kind: string,
  content: string,
  confidence = 0.8,
): MemoryCandidate {
  const value: Memory = {
    id: `m${sequence}`,
    subjectId: "s",
    kind,
    content,
    summary: content,
    confidence,
    validFrom: "2030-01-01T00:00:00.000Z",
    validTo: null,
    sourceEpisodeIds: [`e${sequence}`],
    metadata: { source: `agent-${sequence}` },
    status: "active",
    createdAt: "2030-01-01T00:00:00.000Z",
    updatedAt: "2030-01-01T00:00:00.000Z",
  };
  return { memory: value, sequence, bm25: null };
}

function episode(sequence: number, content: string, sessionId: string | null = null) {
  const value: Episode = {
    id: `e${sequence}`,
    subjectId: "s",
    source: "dev",
    type: "message",
    payload: { content },
    metadata: {},
    provenance: {},
    sessionId,
    createdAt: `2030-01-01T00:00:0${sequence}.000Z`,
  };
  return { episode: value, sequence };
}

describe("estimateTokens", () => {
  it("is ceil(characters / 4)", () => {
    expect(estimateTokens("")).toBe(0);
    expect(estimateTokens("abc")).toBe(1);
    expect(estimateTokens("abcd")).toBe(1);
    expect(estimateTokens("abcde")).toBe(2);
  });
});

describe("searchTerms", () => {
  it("lower-cases, drops stop words and repeats, keeps first-seen order", () => {
    expect(searchTerms("Fix the JWT auth for the Login; JWT again!")).toEqual([
      "fix",
      "jwt",
      "auth",
      "login",
      "again",
    ]);
  });
});

describe("rankContext", () => {
  const base = { subjectId: "s", task: "implement login with jwt", maxTokens: 4000 };

  it("renders sections in fixed order: task, decisions, findings, notes, recent activity", () => {
    const bundle = rankContext({
      ...base,
      memories: [
        memory(1, "implementation_note", "login form done"),
        memory(2, "episode_summary", "user asked for login"),
        memory(3, "architectural_decision", "use jwt"),
        memory(4, "review_finding", "jwt expiry missing"),
      ],
      episodes: [episode(9, "still working", "s1")],
    });
    expect(bundle.assembledContext).toBe(
      [
        "## Task",
        "implement login with jwt",
        "",
        "## Decisions",
        "- use jwt (agent-3)",
        "",
        "## Findings",
        "- jwt expiry missing (agent-4)",
        "",
        "## Notes",
        "- login form done (agent-1)",
        "",
        "## Recent activity",
        "- user asked for login (agent-2)",
        "- [dev/message] still working",
        "",
      ].join("\n"),
    );
    expect(bundle.provenance).toEqual({
      fact_ids: ["m3", "m4", "m1"],
      summary_ids: ["m2"],
      procedure_ids: [],
      episode_ids: ["e9"],
    });
    expect(bundle.sessions).toEqual([
      {
        sessionId: "s1",
        episodeCount: 1,
        firstAt: bundle.episodes[0]?.createdAt,
        lastAt: bundle.episodes[0]?.createdAt,
      },
    ]);
    expect(bundle.tokenEstimate).toBe(estimateTokens(bundle.assembledContext));
  });

  it("ranks relevant memories above irrelevant ones of the same kind", () => {
    const bundle = rankContext({
      ...base,
      memories: [
        memory(2, "implementation_note", "css colours"),
        memory(1, "implementation_note", "jwt login helper"),
      ],
      episodes: [],
    });
    expect(bundle.facts.map((item) => item.id)).toEqual(["m1", "m2"]);
  });

  it("breaks ties by newer first, whatever the input order", () => {
    const candidates = [
      memory(1, "implementation_note", "same"),
      memory(2, "implementation_note", "same"),
    ];
    candidates[0] = { ...memory(1, "implementation_note", "same") };
    const forward = rankContext({ ...base, task: "zzz", memories: candidates, episodes: [] });
    const backward = rankContext({
      ...base,
      task: "zzz",
      memories: [...candidates].reverse(),
      episodes: [],
    });
    expect(forward).toEqual(backward);
  });

  it("skips what does not fit and tries the next, staying within the budget", () => {
    const memories = [
      memory(3, "architectural_decision", "x".repeat(400)),
      memory(2, "implementation_note", "short note"),
      memory(1, "implementation_note", "another short note"),
    ];
    const bundle = rankContext({ ...base, maxTokens: 40, memories, episodes: [] });
    expect(bundle.facts.map((item) => item.id)).toEqual(["m2", "m1"]);
    expect(bundle.tokenEstimate).toBeLessThanOrEqual(40);
  });

  it("always keeps the task header, even over budget", () => {
    const bundle = rankContext({
      ...base,
      maxTokens: 1,
      memories: [memory(1, "procedure", "p")],
      episodes: [],
    });
    expect(bundle.assembledContext).toBe("## Task\nimplement login with jwt\n");
    expect(bundle.procedures).toEqual([]);
  });

  it("leaves out raw episodes a candidate memory already tells", () => {
    const bundle = rankContext({
      ...base,
      memories: [memory(5, "implementation_note", "told")],
      episodes: [episode(5, "told"), episode(6, "new thing")],
    });
    expect(bundle.episodes.map((item) => item.id)).toEqual(["e6"]);
  });

  it.each([
    ["a single space", "use jwt", "use jwt"],
    [
      "tabs, newlines and runs of spaces",
      "use\tjwt\n\nfor  auth\u00a0now ",
      "use jwt for auth now ",
    ],
  ])("puts each memory and episode on one line (%s)", (_, content, line) => {
    const bundle = rankContext({
      ...base,
      memories: [memory(1, "implementation_note", content)],
      episodes: [episode(2, content)],
    });
    expect(bundle.assembledContext).toContain(`- ${line} (agent-1)\n`);
    expect(bundle.assembledContext).toContain(`- [dev/message] ${line.trim()}\n`);
  });

  it("scores with the candidate's own terms when it has them", () => {
    const candidate = memory(1, "implementation_note", "unrelated words");
    const bundle = rankContext({
      ...base,
      task: "jwt",
      // The header, one section and one line: only the best memory fits.
      maxTokens: 14,
      episodes: [],
      memories: [
        { ...candidate, terms: new Set(["jwt"]) },
        memory(2, "implementation_note", "other words"),
      ],
    });
    expect(bundle.facts.map((fact) => fact.id)).toEqual(["m1"]);
  });
});
