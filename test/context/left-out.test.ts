import { describe, expect, it } from "vitest";
import type { Memory } from "../../src/context/context-store.js";
import { withLeftOut } from "../../src/context/left-out.js";

function decision(id: string, content: string, target?: string, extra: object = {}): Memory {
  return {
    id,
    subjectId: "s",
    kind: "architectural_decision",
    content,
    summary: content,
    confidence: 0.9,
    validFrom: "2026-01-01T00:00:00.000Z",
    validTo: null,
    sourceEpisodeIds: [`e-${id}`],
    metadata: { source: "architect", ...(target ? { target } : {}), ...extra },
    status: "active",
    createdAt: "2026-01-01T00:00:00.000Z",
    updatedAt: "2026-01-01T00:00:00.000Z",
  };
}

describe("withLeftOut", () => {
  // Newest first, as every active decision is read.
  const decisions = [
    decision("d4", "Serve reports from the cache", "reports"),
    decision("d3", "Keep legacy-billing: exports read it", "legacy-billing"),
    decision("d2", "Retire legacy-billing", "legacy-billing"),
    decision("d1", "Use Postgres", "database"),
  ];

  it("adds the newest decision on a target the task names, and counts what the text still leaves out", () => {
    const result = withLeftOut(
      "# Context\n",
      "port legacy-billing to v2",
      decisions,
      new Set(["d4"]),
    );
    expect(result.named.map((memory) => memory.id)).toEqual(["d3"]);
    expect(result.count).toBe(2);
    expect(result.text).toBe(
      "# Context\n\n## Decisions on what the task names\n- Keep legacy-billing: exports read it (architect, on legacy-billing)\n\n2 other active decisions are not in this context (left out for the token budget); name a target in the task to read its decisions, get_decision_history for one.\n",
    );
  });

  it("names nothing and counts nothing when the ranked context holds every decision", () => {
    const all = new Set(decisions.map((memory) => memory.id));
    expect(withLeftOut("text", "legacy-billing", decisions, all)).toEqual({
      text: "text",
      named: [],
      count: 0,
      atLeast: false,
    });
  });

  it("adds the decisions counted but not read, and says when the count is a lower bound", () => {
    const all = new Set(decisions.map((memory) => memory.id));
    const result = withLeftOut("", "x", decisions, all, { count: 100, atLeast: true });
    expect(result).toMatchObject({ count: 100, atLeast: true });
    expect(result.text).toBe(
      "\nAt least 100 other active decisions are not in this context (left out for the token budget); name a target in the task to read its decisions, get_decision_history for one.\n",
    );
  });

  it("matches a target as a whole name only, in any case", () => {
    const near = [decision("a", "Retire old-1", "old-1"), decision("b", "Retire old-12", "old-12")];
    expect(withLeftOut("", "Port OLD-12 now", near, new Set()).named.map((m) => m.id)).toEqual([
      "b",
    ]);
    expect(withLeftOut("", "port old-123", near, new Set()).named).toEqual([]);
  });

  it("leaves retractions out of both: a retraction stands for no decision", () => {
    const retraction = decision("r", "Retracted: Use Postgres", "database", { retracts: "d0" });
    const result = withLeftOut("", "the database", [retraction], new Set());
    expect(result).toMatchObject({ named: [], count: 0 });
  });

  it("says one decision in the singular", () => {
    expect(withLeftOut("", "x", [decisions[3] as Memory], new Set()).text).toContain(
      "1 other active decision is not in this context",
    );
  });
});
