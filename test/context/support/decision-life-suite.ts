import { afterEach, describe, expect, it } from "vitest";
import type { ContextStore, Memory } from "../../../src/context/context-store.js";
import { DecisionLifecycleError } from "../../../src/context/errors/decision-lifecycle-error.js";
import { type InvalidationNotice, SharedContext } from "../../../src/context/shared-context.js";

const subjectId = "project-1";

/** Lets pending store notifications and lookups run. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 20));

function only(memories: readonly Memory[]): Memory {
  expect(memories).toHaveLength(1);
  const [memory] = memories;
  if (memory === undefined) throw new Error("no memory compiled");
  return memory;
}

/**
 * A decision's life cycle through `SharedContext` on one store: supersede by id, retract,
 * history, and idempotent publishes. `prepare` runs inside the `describe` and returns how to open a
 * fresh, empty store per test, with what closes it after the test; `notifies` says whether its change feed reaches `onInvalidated` promptly (a polling client
 * is left out of that one test).
 */
export function describeDecisionLife(
  storeName: string,
  prepare: () => () => Promise<{ store: ContextStore; close(): Promise<void> }>,
  options: { skip?: boolean; notifies?: boolean } = {},
): void {
  describe.skipIf(options.skip ?? false)(`decision life cycle on ${storeName}`, () => {
    const open = prepare();
    const opened: Array<{ close(): Promise<void> }> = [];
    afterEach(async () => {
      for (const item of opened.splice(0).reverse()) await item.close();
    });

    async function setUp() {
      const { store, close } = await open();
      const shared = new SharedContext({ store, subjectId });
      opened.push({ close }, shared);
      return { store, shared };
    }

    describe("supersede by id", () => {
      it("a publish naming a memory id supersedes that one, though its writer never read it", async () => {
        const { shared } = await setUp();
        const first = only(
          (await shared.decide("planner", "Sign tokens with HS256", { target: "token-signing" }))
            .memories,
        );
        const { memories } = await shared.decide("security", "Sign tokens with RS256", {
          supersedes: first.id,
        });
        const replacement = only(memories);
        expect(replacement.metadata.target).toBe("token-signing");
        expect(replacement.kind).toBe("architectural_decision");
        const read = await shared.beforeActing("coder", "sign tokens");
        expect(read.decisions.map((memory) => memory.content)).toEqual(["Sign tokens with RS256"]);
        expect(read.contradictions).toEqual([]);
      });

      it("supersedes exactly the one named: the other side of a dispute stays active", async () => {
        const { shared } = await setUp();
        const one = only(
          (await shared.decide("coder-1", "Cache in Redis", { target: "cache" })).memories,
        );
        await shared.decide("coder-2", "Cache in memory", { target: "cache" });
        expect((await shared.contradictions()).map((dispute) => dispute.target)).toEqual(["cache"]);
        await shared.decide("coder-1", "Cache in Memcached", { supersedes: one.id });
        const read = await shared.beforeActing("lead", "cache");
        expect(read.decisions.map((memory) => memory.content).sort()).toEqual([
          "Cache in Memcached",
          "Cache in memory",
        ]);
        const history = await shared.history(one.id);
        expect(history.status).toBe("superseded");
        expect(history.supersededBy).toMatchObject({
          agentId: "coder-1",
          content: "Cache in Memcached",
        });
      });

      it.each([
        ["not-found", "no such id"],
        ["not-active", "superseded already"],
        ["no-target", "a decision without a target"],
        ["other-subject-matter", "another target named"],
      ] as const)("refuses %s (%s), naming the memory", async (problem, _case) => {
        const { shared } = await setUp();
        const targeted = only(
          (await shared.decide("planner", "Use Postgres", { target: "database" })).memories,
        );
        const untargeted = only((await shared.decide("planner", "Ship on Fridays")).memories);
        const ids = {
          "not-found": "mem-none",
          "not-active": targeted.id,
          "no-target": untargeted.id,
          "other-subject-matter": targeted.id,
        };
        if (problem === "not-active") {
          await shared.decide("lead", "Use SQLite", { supersedes: targeted.id });
        }
        const attempt = shared.decide("coder", "Use MySQL", {
          supersedes: ids[problem],
          ...(problem === "other-subject-matter" ? { target: "queue" } : {}),
        });
        await expect(attempt).rejects.toBeInstanceOf(DecisionLifecycleError);
        await expect(attempt).rejects.toMatchObject({ problem, memoryId: ids[problem] });
        if (problem === "not-active") {
          await expect(attempt).rejects.toThrow(/superseded by lead/);
        }
      });
    });

    describe("retract", () => {
      it("the decision stops being active; the retraction is an attributed episode, no decision and no dispute", async () => {
        const { shared, store } = await setUp();
        const decision = only(
          (
            await shared.decide("planner", "Deprecate legacy-session-token", {
              target: "legacy-session-token",
            })
          ).memories,
        );
        await shared.beforeActing("coder", "sessions");
        const { episode, memories } = await shared.retract("planner", decision.id, {
          reason: "mobile clients still need it",
        });
        expect(episode.source).toBe("planner");
        expect(episode.payload).toMatchObject({
          retracts: decision.id,
          reason: "mobile clients still need it",
          target: "legacy-session-token",
        });
        expect(only(memories).metadata.retracts).toBe(decision.id);

        const read = await shared.beforeActing("coder", "sessions");
        expect(read.decisions).toEqual([]);
        expect(read.retractions.map((memory) => memory.metadata.retracts)).toEqual([decision.id]);
        expect(read.contradictions).toEqual([]);
        const timeline = await store.getTimeline(subjectId);
        expect(timeline.memories.find((memory) => memory.id === decision.id)?.status).toBe(
          "superseded",
        );

        // A decision on the target later, by someone who never read the retraction: no dispute.
        await shared.decide("reviewer", "Keep legacy-session-token for mobile", {
          target: "legacy-session-token",
        });
        const after = await shared.beforeActing("coder", "sessions");
        expect(after.decisions.map((memory) => memory.content)).toEqual([
          "Keep legacy-session-token for mobile",
        ]);
        expect(after.contradictions).toEqual([]);
      });

      it("refuses a retraction of one retracted already, naming who did it", async () => {
        const { shared } = await setUp();
        const decision = only(
          (await shared.decide("planner", "Use gRPC", { target: "transport" })).memories,
        );
        await shared.retract("lead", decision.id);
        await expect(shared.retract("coder", decision.id)).rejects.toThrow(/retracted by lead/);
      });

      it.skipIf(options.notifies === false)(
        "tells whoever read the decision that it was retracted, and by whom",
        async () => {
          const { shared } = await setUp();
          const decision = only(
            (await shared.decide("planner", "Use gRPC", { target: "transport" })).memories,
          );
          await shared.beforeActing("coder", "transport");
          const notices: InvalidationNotice[] = [];
          shared.onInvalidated("coder", (notice) => notices.push(notice));
          await shared.retract("planner", decision.id, { reason: "REST is enough" });
          await settle();
          expect(notices).toEqual([
            expect.objectContaining({ memoryId: decision.id, by: "planner" }),
          ]);
          expect(notices[0]?.reason).toMatch(/^retracted by planner: Retracted: Use gRPC/);
        },
      );
    });

    describe("history", () => {
      it("names who wrote it, who read it, and who superseded it with what", async () => {
        const { shared } = await setUp();
        const decision = only(
          (await shared.decide("planner", "Use Postgres", { target: "database" })).memories,
        );
        await shared.beforeActing("coder", "database");
        await shared.decide("coder", "Add a users table", { target: "users-table" });
        await shared.beforeActing("lead", "database");
        await shared.decide("lead", "Use SQLite", { target: "database" });

        const history = await shared.history(decision.id);
        expect(history.author).toBe("planner");
        expect(history.readers).toEqual(["coder"]);
        expect(history.status).toBe("superseded");
        expect(history.supersededBy).toMatchObject({ agentId: "lead", content: "Use SQLite" });
        expect(history.events.map((event) => [event.type, event.agentId])).toEqual([
          ["written", "planner"],
          ["read", "coder"],
          ["superseded", "lead"],
        ]);
        const replacement = history.supersededBy?.memoryId ?? "";
        expect((await shared.history(replacement)).supersedes).toEqual([decision.id]);
      });

      it("refuses an id the subject does not have", async () => {
        const { shared } = await setUp();
        await expect(shared.history("mem-none")).rejects.toMatchObject({ problem: "not-found" });
      });
    });

    describe("idempotent publish", () => {
      it("the same key twice creates one episode and returns the first call's memory", async () => {
        const { shared, store } = await setUp();
        const first = await shared.decide("planner", "Use Postgres", {
          target: "database",
          idempotencyKey: "decide-1",
        });
        const second = await shared.decide("planner", "Use Postgres", {
          target: "database",
          idempotencyKey: "decide-1",
        });
        expect(second.episode.id).toBe(first.episode.id);
        expect(second.memories.map((memory) => memory.id)).toEqual(
          first.memories.map((memory) => memory.id),
        );
        const timeline = await store.getTimeline(subjectId);
        expect(timeline.episodes).toHaveLength(1);
        expect((await shared.beforeActing("coder", "database")).decisions).toHaveLength(1);
      });

      it("a retried retraction or supersede with its key stores nothing new", async () => {
        const { shared, store } = await setUp();
        const one = only(
          (await shared.decide("planner", "Use gRPC", { target: "transport" })).memories,
        );
        const two = only(
          (await shared.decide("planner", "Use Kafka", { target: "queue" })).memories,
        );
        const retracted = await shared.retract("lead", one.id, { idempotencyKey: "retract-1" });
        const again = await shared.retract("lead", one.id, { idempotencyKey: "retract-1" });
        expect(again.episode.id).toBe(retracted.episode.id);
        const replaced = await shared.decide("lead", "Use NATS", {
          supersedes: two.id,
          idempotencyKey: "supersede-1",
        });
        const retried = await shared.decide("lead", "Use NATS", {
          supersedes: two.id,
          idempotencyKey: "supersede-1",
        });
        expect(retried.episode.id).toBe(replaced.episode.id);
        expect((await store.getTimeline(subjectId)).episodes).toHaveLength(4);
      });
    });
  });
}
