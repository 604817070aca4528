import { describe, expect, it } from "vitest";
import { rankContext } from "../../src/context/rank-context.js";
import { episode } from "./support/rank-candidates.js";

const base = { subjectId: "s", task: "zzz", maxTokens: 4000, episodes: [] };

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
