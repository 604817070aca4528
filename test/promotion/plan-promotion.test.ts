import { describe, expect, it } from "vitest";
import type { Authority } from "../../src/context/authority.js";
import type { Memory } from "../../src/context/context-store.js";
import { type PromotionCandidate, planPromotion } from "../../src/promotion/plan-promotion.js";

function candidate(
  id: string,
  fields: {
    author?: string;
    target?: string;
    authority?: Authority;
    read?: string[];
    status?: Memory["status"];
    promotedFrom?: string;
  } = {},
): PromotionCandidate {
  const author = fields.author ?? "coder";
  return {
    memory: {
      id,
      subjectId: "s",
      kind: "architectural_decision",
      content: id,
      summary: id,
      confidence: 0.9,
      validFrom: "2026-01-01T00:00:00.000Z",
      validTo: null,
      sourceEpisodeIds: [`episode-${id}`],
      metadata: { source: author, ...(fields.target ? { target: fields.target } : {}) },
      status: fields.status ?? "active",
      createdAt: "2026-01-01T00:00:00.000Z",
      updatedAt: "2026-01-01T00:00:00.000Z",
    },
    author,
    authority: fields.authority ?? "agent",
    readMemoryIds: fields.read ?? [],
    ...(fields.promotedFrom
      ? {
          promotedFrom: {
            subjectId: "run",
            memoryId: fields.promotedFrom,
            episodeIds: [],
            author,
            authority: "agent",
          },
        }
      : {}),
  };
}

const subjects = { runSubjectId: "run", projectSubjectId: "project" };
const statuses = (run: PromotionCandidate[], project: PromotionCandidate[]) =>
  planPromotion(run, project, subjects).items.map((item) => item.status);

describe("planPromotion", () => {
  it.each([
    ["no project decision on the target", "t", [], "new"],
    [
      "a run decision without a target",
      undefined,
      [candidate("p", { author: "alice", target: "t" })],
      "new",
    ],
    [
      "a project decision it read",
      "t",
      [candidate("p", { author: "alice", target: "t" })],
      "supersedes",
    ],
    ["its author's own project decision", "t", [candidate("p", { target: "t" })], "supersedes"],
    [
      "a superseded project decision only",
      "t",
      [candidate("p", { author: "alice", target: "t", status: "superseded" })],
      "new",
    ],
  ] as const)("%s", (_name, target, project, status) => {
    const run = candidate("r", { ...(target ? { target } : {}), read: ["p"] });
    expect(statuses([run], [...project])).toStrictEqual([status]);
  });

  it("holds a decision against one its writer never read, naming why", () => {
    const plan = planPromotion(
      [candidate("r", { target: "t" })],
      [candidate("p", { author: "alice", target: "t" })],
      subjects,
    );
    expect(plan.items[0]).toMatchObject({
      status: "conflict",
      against: [{ decision: { memory: { id: "p" } }, unread: true, outranks: false }],
    });
  });

  it.each([
    ["user", "agent", "conflict"],
    ["verified", "agent", "conflict"],
    ["agent", "agent", "supersedes"],
    ["agent", "user", "supersedes"],
    ["speculative", "agent", "supersedes"],
  ] as const)("a %s project decision read by an %s run decision: %s", (project, run, status) => {
    expect(
      statuses(
        [candidate("r", { target: "t", authority: run, read: ["p"] })],
        [candidate("p", { author: "alice", target: "t", authority: project })],
      ),
    ).toStrictEqual([status]);
  });

  it("needs every project decision on the target overruled to supersede", () => {
    const plan = planPromotion(
      [candidate("r", { target: "t", read: ["p1"] })],
      [
        candidate("p1", { author: "alice", target: "t" }),
        candidate("p2", { author: "bob", target: "t" }),
      ],
      subjects,
    );
    expect(plan.items[0]).toMatchObject({
      status: "conflict",
      against: [{ decision: { memory: { id: "p2" } }, unread: true }],
    });
  });

  it("knows a project decision promoted from a run decision its writer read", () => {
    expect(
      statuses(
        [candidate("r2", { author: "reviewer", target: "t", read: ["r1"] })],
        [candidate("p", { author: "coder", target: "t", promotedFrom: "r1" })],
      ),
    ).toStrictEqual(["supersedes"]);
  });

  it("calls a decision promoted before unchanged, whatever its project copy's status", () => {
    const plan = planPromotion(
      [candidate("r", { target: "t" })],
      [candidate("p", { target: "t", status: "superseded", promotedFrom: "r" })],
      subjects,
    );
    expect(plan.items[0]).toMatchObject({ status: "unchanged", promoted: { memory: { id: "p" } } });
  });

  it("keeps the latest verdict: rejected stays out, a later approval reopens it", () => {
    const verdict = (kind: "approved" | "rejected", at: string) => ({
      verdict: kind,
      subjectId: "run",
      memoryId: "r",
      by: "dana",
      at,
      episodeId: `v-${at}`,
    });
    const run = [candidate("r", { target: "t" })];
    expect(
      planPromotion(run, [], { ...subjects, verdicts: [verdict("rejected", "1")] }).items[0]
        ?.status,
    ).toBe("rejected");
    expect(
      planPromotion(run, [], {
        ...subjects,
        verdicts: [verdict("rejected", "1"), verdict("approved", "2")],
      }).items[0]?.status,
    ).toBe("new");
    // A verdict about another run's decision does not count.
    expect(
      planPromotion(run, [], {
        ...subjects,
        verdicts: [{ ...verdict("rejected", "1"), subjectId: "other-run" }],
      }).items[0]?.status,
    ).toBe("new");
  });
});
