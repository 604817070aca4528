import { describe, expect, it } from "vitest";
import type { ContextStore, Episode, Memory } from "../../src/context/context-store.js";
import { SharedContext } from "../../src/context/shared-context.js";
import { PromotionInputError } from "../../src/promotion/errors/promotion-input-error.js";
import { planRunPromotion, promoteRun } from "../../src/promotion/promote-run.js";
import { promotionSourceOf } from "../../src/promotion/promotion-records.js";
import { readWholeTimeline } from "../../src/promotion/read-decisions.js";

const kind = "architectural_decision";

/** Publishes a project decision as a person or an agent would, outside any run. */
async function projectDecision(
  store: ContextStore,
  source: string,
  content: string,
  target: string,
  authority?: string,
): Promise<Memory> {
  const episode = await store.createEpisode({
    subjectId: "project",
    source,
    type: kind,
    payload: { content, target },
    ...(authority ? { metadata: { authority } } : {}),
  });
  const { memories } = await store.compileMemories("project");
  const memory = memories.find((candidate) => candidate.sourceEpisodeIds.includes(episode.id));
  if (!memory) throw new Error(`no memory for ${content}`);
  return memory;
}

/**
 * A project with two decisions, and a run with three: one on a new target, one on a target whose
 * project decision its writer had read (supersedes), one on a target it never read (conflict).
 */
async function seed(store: ContextStore) {
  const database = await projectDecision(store, "alice", "Use Postgres", "database");
  const auth = await projectDecision(store, "alice", "Sessions in cookies", "auth");
  const run = new SharedContext({ store, subjectId: "run-1" });
  const cache = await run.decide("coder", "Cache with Redis", { kind, target: "cache" });
  const jwt = await run.decide("coder", "Use JWT, not cookies", {
    kind,
    target: "auth",
    readMemoryIds: [auth.id],
  });
  const sqlite = await run.decide("planner", "Use SQLite", { kind, target: "database" });
  await run.close();
  const only = (result: { memories: Memory[] }) => {
    const [memory] = result.memories;
    if (!memory) throw new Error("decide compiled nothing");
    return memory;
  };
  return {
    project: { database, auth },
    run: { cache: only(cache), jwt: only(jwt), sqlite: only(sqlite) },
    jwtEpisode: jwt.episode,
  };
}

async function activeProjectDecisions(store: ContextStore): Promise<Memory[]> {
  return (await store.searchMemories("project", { kind, limit: 100 })).sort((a, b) =>
    a.content.localeCompare(b.content),
  );
}

/** The contents of the project's active decisions, in order: what a promotion left standing. */
async function activeProjectContents(store: ContextStore): Promise<string[]> {
  return (await activeProjectDecisions(store)).map((memory) => memory.content);
}

/** What a promotion did with each of the run's decisions, in the plan's order. */
const outcomes = (result: { items: ReadonlyArray<{ outcome: string }> }) =>
  result.items.map((item) => item.outcome);

/** The promotion most tests make: the seeded run-1 into the project. */
const runOne = { runSubjectId: "run-1", projectSubjectId: "project" } as const;

function episodeOf(episodes: readonly Episode[], memory: Memory): Episode {
  const episode = episodes.find((candidate) => memory.sourceEpisodeIds.includes(candidate.id));
  if (!episode) throw new Error(`no episode for ${memory.id}`);
  return episode;
}

/** The promotion contract, run against one store. */
export function describePromotion(name: string, open: () => Promise<ContextStore>): void {
  describe(`promotion on the ${name} store`, () => {
    async function withStore(test: (store: ContextStore) => Promise<void>): Promise<void> {
      const store = await open();
      try {
        await test(store);
      } finally {
        await store.close();
      }
    }

    it("plans one new, one superseding and one conflicting decision", () =>
      withStore(async (store) => {
        const seeded = await seed(store);
        const plan = await planRunPromotion(store, runOne);
        expect(plan.items.map((item) => [item.id, item.status])).toStrictEqual([
          [seeded.run.cache.id, "new"],
          [seeded.run.jwt.id, "supersedes"],
          [seeded.run.sqlite.id, "conflict"],
        ]);
        const conflict = plan.items[2];
        expect(conflict?.status === "conflict" && conflict.against).toMatchObject([
          {
            decision: { memory: { id: seeded.project.database.id } },
            unread: true,
            outranks: false,
          },
        ]);
        // Planning writes nothing.
        expect((await readWholeTimeline(store, "project")).episodes).toHaveLength(2);
      }));

    it("applies the first two and holds the conflict until approved, recording the approver", () =>
      withStore(async (store) => {
        const seeded = await seed(store);
        const first = await promoteRun(store, {
          ...runOne,
          approver: "dana",
        });
        expect(outcomes(first)).toStrictEqual(["promoted", "promoted", "held"]);
        expect(first.held.map((item) => item.id)).toStrictEqual([seeded.run.sqlite.id]);
        expect(await activeProjectContents(store)).toStrictEqual([
          "Cache with Redis",
          "Use JWT, not cookies",
          "Use Postgres",
        ]);

        const second = await promoteRun(store, {
          ...runOne,
          approver: "dana",
          approve: [seeded.run.sqlite.id],
        });
        expect(outcomes(second)).toStrictEqual(["unchanged", "unchanged", "promoted"]);
        expect(await activeProjectContents(store)).toStrictEqual([
          "Cache with Redis",
          "Use JWT, not cookies",
          "Use SQLite",
        ]);
        const [approval] = second.verdicts;
        expect(approval).toMatchObject({
          subjectId: "project",
          source: "dana",
          type: "promotion_review",
          payload: { verdict: "approved", runSubjectId: "run-1", memoryId: seeded.run.sqlite.id },
        });
        expect(approval?.createdAt).toEqual(expect.any(String));
        const timeline = await readWholeTimeline(store, "project");
        expect(
          timeline.memories.find((memory) => memory.id === seeded.project.database.id),
        ).toMatchObject({
          status: "superseded",
        });
      }));

    it("keeps each promoted decision's author, run and source episodes", () =>
      withStore(async (store) => {
        const seeded = await seed(store);
        await promoteRun(store, {
          ...runOne,
          approver: "dana",
        });
        const timeline = await readWholeTimeline(store, "project");
        const promoted = (await activeProjectDecisions(store)).find(
          (memory) => memory.content === "Use JWT, not cookies",
        );
        if (!promoted) throw new Error("JWT decision not promoted");
        expect(promoted.metadata.source).toBe("coder");
        const episode = episodeOf(timeline.episodes, promoted);
        expect(episode.source).toBe("coder");
        expect(promotionSourceOf(episode.metadata)).toStrictEqual({
          subjectId: "run-1",
          memoryId: seeded.run.jwt.id,
          episodeIds: [seeded.jwtEpisode.id],
          author: "coder",
          authority: "agent",
        });
        expect(episode.provenance).toMatchObject({
          read_memory_ids: [seeded.project.auth.id],
          promoted_from: { subjectId: "run-1", memoryId: seeded.run.jwt.id },
        });
        // It superseded the project decision it overruled.
        expect(
          timeline.memories.find((memory) => memory.id === seeded.project.auth.id)?.status,
        ).toBe("superseded");
      }));

    it("changes nothing when the same run is promoted again", () =>
      withStore(async (store) => {
        const seeded = await seed(store);
        const review = {
          ...runOne,
          approver: "dana",
          approve: [seeded.run.sqlite.id],
        };
        await promoteRun(store, review);
        const before = await readWholeTimeline(store, "project");
        const again = await promoteRun(store, review);
        expect(outcomes(again)).toStrictEqual(["unchanged", "unchanged", "unchanged"]);
        expect(again.verdicts).toStrictEqual([]);
        expect(await readWholeTimeline(store, "project")).toStrictEqual(before);
      }));

    it("keeps a rejected decision out, also on the next promotion, until it is approved", () =>
      withStore(async (store) => {
        const seeded = await seed(store);
        const first = await promoteRun(store, {
          ...runOne,
          approver: "dana",
          reject: [seeded.run.cache.id, seeded.run.sqlite.id],
        });
        expect(outcomes(first)).toStrictEqual(["rejected", "promoted", "rejected"]);
        expect(
          first.verdicts.map((verdict) => [verdict.source, verdict.payload.verdict]),
        ).toStrictEqual([
          ["dana", "rejected"],
          ["dana", "rejected"],
        ]);
        const plan = await planRunPromotion(store, runOne);
        expect(plan.items.map((item) => item.status)).toStrictEqual([
          "rejected",
          "unchanged",
          "rejected",
        ]);
        // Rejected before: it stays out, and nothing is held for a reviewer.
        const unreviewed = await promoteRun(store, {
          ...runOne,
          approver: "dana",
        });
        expect(outcomes(unreviewed)).toStrictEqual(["unchanged", "unchanged", "unchanged"]);
        expect(unreviewed.held).toStrictEqual([]);
        const later = await promoteRun(store, {
          ...runOne,
          approver: "erin",
          approve: [seeded.run.cache.id],
        });
        expect(outcomes(later)).toStrictEqual(["promoted", "unchanged", "unchanged"]);
        expect(later.verdicts).toMatchObject([
          { source: "erin", payload: { verdict: "approved", memoryId: seeded.run.cache.id } },
        ]);
        expect(await activeProjectContents(store)).toStrictEqual([
          "Cache with Redis",
          "Use JWT, not cookies",
          "Use Postgres",
        ]);
      }));

    it("holds a decision that read a person's decision but has less authority", () =>
      withStore(async (store) => {
        const person = await projectDecision(store, "alice", "Keep the REST API", "api", "user");
        const run = new SharedContext({ store, subjectId: "run-2" });
        const guess = await run.decide("coder", "Move to GraphQL", {
          kind,
          target: "api",
          readMemoryIds: [person.id],
        });
        await run.close();
        const plan = await planRunPromotion(store, {
          runSubjectId: "run-2",
          projectSubjectId: "project",
        });
        expect(plan.items).toMatchObject([
          {
            id: guess.memories[0]?.id,
            status: "conflict",
            against: [{ decision: { authority: "user" }, unread: false, outranks: true }],
          },
        ]);
      }));

    it("lets a run that moved on supersede what it promoted before", () =>
      withStore(async (store) => {
        const run = new SharedContext({ store, subjectId: "run-3" });
        await run.decide("coder", "Log as JSON", { kind, target: "logging" });
        await promoteRun(store, {
          runSubjectId: "run-3",
          projectSubjectId: "project",
          approver: "dana",
        });
        // The same author restates (the run's compile supersedes its own earlier decision).
        await run.decide("coder", "Log as logfmt", { kind, target: "logging" });
        await run.close();
        const result = await promoteRun(store, {
          runSubjectId: "run-3",
          projectSubjectId: "project",
          approver: "dana",
        });
        expect(result.plan.items.map((item) => item.status)).toStrictEqual(["supersedes"]);
        expect(await activeProjectContents(store)).toStrictEqual(["Log as logfmt"]);
      }));

    it("refuses unknown ids and a run promoted into itself, writing nothing", () =>
      withStore(async (store) => {
        const seeded = await seed(store);
        const base = { ...runOne, approver: "dana" };
        await expect(promoteRun(store, { ...base, approve: ["mem-nope"] })).rejects.toThrow(
          PromotionInputError,
        );
        await expect(
          promoteRun(store, {
            ...base,
            approve: [seeded.run.sqlite.id],
            reject: [seeded.run.sqlite.id],
          }),
        ).rejects.toThrow(/both approved and rejected/);
        await expect(promoteRun(store, { ...base, projectSubjectId: "run-1" })).rejects.toThrow(
          /into itself/,
        );
        expect((await readWholeTimeline(store, "project")).episodes).toHaveLength(2);
      }));
  });
}
