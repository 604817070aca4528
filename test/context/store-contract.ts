import { randomUUID } from "node:crypto";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type {
  ContextStore,
  CreateEpisodeInput,
  StoreChange,
} from "../../src/context/context-store.js";
import { describeExactReadsContract } from "./store-contract-exact-reads.js";

/** A store under test and how to dispose of it. */
export interface StoreUnderTest {
  store: ContextStore;
  cleanup(): Promise<void>;
}

/** Polls `check` until it stops throwing (or the time is up, then rethrows its last error). */
export async function waitFor<T>(check: () => T | Promise<T>, timeoutMs = 5000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await check();
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }
}

/** A subject id no other test (or earlier run against a shared server) uses. */
export function uniqueSubject(label: string): string {
  return `${label}-${randomUUID().slice(0, 8)}`;
}

function episode(
  subjectId: string,
  overrides: Partial<CreateEpisodeInput> = {},
): CreateEpisodeInput {
  return {
    subjectId,
    source: "agent-a",
    type: "implementation_note",
    payload: { content: "a note" },
    ...overrides,
  };
}

/**
 * The behaviour every `ContextStore` must have, written against the interface only, so it runs
 * unchanged against `EmbeddedStore` (memory and file) and `StatewaveClient` -> `shared-ctx serve`.
 * Every test uses fresh subject ids, so a backend may share state between tests.
 */
export function describeStoreContract(
  name: string,
  makeStore: () => Promise<StoreUnderTest>,
): void {
  describe(`ContextStore contract: ${name}`, () => {
    let store: ContextStore;
    let cleanup: () => Promise<void>;

    beforeEach(async () => {
      const made = await makeStore();
      store = made.store;
      cleanup = made.cleanup;
    });
    afterEach(async () => {
      await cleanup();
    });

    describe("createEpisode", () => {
      it("returns the stored episode with defaults filled in", async () => {
        const subjectId = uniqueSubject("create");
        const payload = {
          content: "Ünïcödé ✓ 🚀 \u2028 line",
          nested: { list: [1, 2.5, "x", null, true], deep: { a: { b: [] } } },
        };
        const created = await store.createEpisode({
          subjectId,
          source: "architect",
          type: "architectural_decision",
          payload,
        });
        expect(created).toMatchObject({
          subjectId,
          source: "architect",
          type: "architectural_decision",
          payload,
          metadata: {},
          provenance: {},
        });
        expect(created.id).toEqual(expect.any(String));
        expect(Number.isNaN(Date.parse(created.createdAt))).toBe(false);

        const timeline = await store.getTimeline(subjectId);
        expect(timeline.episodes).toHaveLength(1);
        expect(timeline.episodes[0]).toMatchObject({ id: created.id, payload });
      });

      it("keeps metadata, provenance and sessionId as given", async () => {
        const subjectId = uniqueSubject("meta");
        const created = await store.createEpisode(
          episode(subjectId, {
            metadata: { tool: "grep", snake_key: 1 },
            provenance: { run_id: "r1" },
            sessionId: "s-1",
          }),
        );
        const [stored] = (await store.getTimeline(subjectId)).episodes;
        expect(stored?.metadata).toEqual({ tool: "grep", snake_key: 1 });
        expect(stored?.provenance).toEqual({ run_id: "r1" });
        expect(stored?.sessionId).toBe("s-1");
        expect(created.sessionId).toBe("s-1");
      });

      it.each([
        ["an empty subjectId", { subjectId: "" }],
        ["a subjectId over 256 characters", { subjectId: "x".repeat(257) }],
        ["an empty source", { source: "" }],
        ["a type over 128 characters", { type: "t".repeat(129) }],
      ])("rejects %s and writes nothing", async (_label, overrides) => {
        const subjectId = uniqueSubject("invalid");
        await expect(store.createEpisode(episode(subjectId, overrides))).rejects.toThrow();
        expect((await store.getTimeline(subjectId)).episodes).toHaveLength(0);
      });
    });

    describe("createEpisodesBatch", () => {
      it("stores the batch in request order", async () => {
        const subjectId = uniqueSubject("batch");
        const inputs = Array.from({ length: 5 }, (_, index) =>
          episode(subjectId, { payload: { content: `item ${index}` } }),
        );
        const result = await store.createEpisodesBatch(inputs);
        expect(result.episodesCreated).toBe(5);
        expect(result.episodes.map((item) => item.payload.content)).toEqual(
          inputs.map((input) => input.payload.content),
        );
        const timeline = await store.getTimeline(subjectId);
        expect(timeline.episodes.map((item) => item.id)).toEqual(
          result.episodes.map((item) => item.id),
        );
      });

      it("rejects more than 100 items and writes nothing", async () => {
        const subjectId = uniqueSubject("batch-big");
        const inputs = Array.from({ length: 101 }, () => episode(subjectId));
        await expect(store.createEpisodesBatch(inputs)).rejects.toThrow();
        expect((await store.getTimeline(subjectId)).episodes).toHaveLength(0);
      });

      it("rejects an empty batch", async () => {
        await expect(store.createEpisodesBatch([])).rejects.toThrow();
      });

      it("writes nothing when one item is invalid", async () => {
        const subjectId = uniqueSubject("batch-bad");
        const inputs = [episode(subjectId), episode(subjectId, { source: "" }), episode(subjectId)];
        await expect(store.createEpisodesBatch(inputs)).rejects.toThrow();
        expect((await store.getTimeline(subjectId)).episodes).toHaveLength(0);
      });
    });

    describe("compileMemories", () => {
      it("turns episode types into memory kinds with confidence and sources", async () => {
        const subjectId = uniqueSubject("compile");
        const { episodes } = await store.createEpisodesBatch([
          episode(subjectId, {
            type: "architectural_decision",
            payload: { content: "Use RS256 JWTs", target: "auth.token" },
          }),
          episode(subjectId, {
            type: "review_finding",
            payload: { text: "Token expiry is missing", confidence: 0.55 },
          }),
          episode(subjectId, { type: "message", payload: { content: "hello team" } }),
          episode(subjectId, { type: "state_update", payload: { content: "crdt bytes" } }),
          episode(subjectId, { type: "run_event", payload: { content: "agent-start" } }),
        ]);
        const result = await store.compileMemories(subjectId);
        expect(result.subjectId).toBe(subjectId);
        expect(result.memoriesCreated).toBe(3);
        const byKind = Object.fromEntries(result.memories.map((memory) => [memory.kind, memory]));
        expect(byKind.architectural_decision).toMatchObject({
          content: "Use RS256 JWTs",
          status: "active",
          validTo: null,
          sourceEpisodeIds: [episodes[0]?.id],
        });
        expect(byKind.review_finding).toMatchObject({
          content: "Token expiry is missing",
          confidence: 0.55,
          sourceEpisodeIds: [episodes[1]?.id],
        });
        expect(byKind.episode_summary).toMatchObject({ content: "hello team" });
        for (const memory of result.memories) {
          expect(memory.confidence).toBeGreaterThan(0);
          expect(memory.confidence).toBeLessThanOrEqual(1);
        }
      });

      it("is idempotent: compiling again creates nothing", async () => {
        const subjectId = uniqueSubject("idempotent");
        await store.createEpisode(episode(subjectId));
        expect((await store.compileMemories(subjectId)).memoriesCreated).toBe(1);
        expect(await store.compileMemories(subjectId)).toEqual({
          subjectId,
          memoriesCreated: 0,
          memories: [],
        });
        expect((await store.getTimeline(subjectId)).memories).toHaveLength(1);
      });

      it("gives an unknown subject zero memories, not an error", async () => {
        const result = await store.compileMemories(uniqueSubject("unknown"));
        expect(result.memoriesCreated).toBe(0);
      });

      it("supersedes the older memory with the same kind and target", async () => {
        const subjectId = uniqueSubject("supersede");
        await store.createEpisode(
          episode(subjectId, {
            type: "architectural_decision",
            payload: { content: "Sessions in cookies", target: "auth.session" },
          }),
        );
        const [first] = (await store.compileMemories(subjectId)).memories;
        await store.createEpisode(
          episode(subjectId, {
            type: "architectural_decision",
            payload: { content: "Stateless JWT sessions", target: "auth.session" },
          }),
        );
        // Same target, other kind: not the same subject matter.
        await store.createEpisode(
          episode(subjectId, {
            type: "implementation_note",
            payload: { content: "cookie helper written", target: "auth.session" },
          }),
        );
        const [second] = (await store.compileMemories(subjectId)).memories;

        const timeline = await store.getTimeline(subjectId);
        const old = timeline.memories.find((memory) => memory.id === first?.id);
        expect(old?.status).toBe("superseded");
        expect(old?.validTo).toEqual(expect.any(String));
        expect(timeline.memories.map((memory) => memory.id)).toContain(second?.id);

        const active = await store.searchMemories(subjectId, { kind: "architectural_decision" });
        expect(active.map((memory) => memory.content)).toEqual(["Stateless JWT sessions"]);
        const notes = await store.searchMemories(subjectId, { kind: "implementation_note" });
        expect(notes).toHaveLength(1);
      });

      it("supersedes within one compile, keeping only the newest active", async () => {
        const subjectId = uniqueSubject("chain");
        await store.createEpisodesBatch(
          ["v1", "v2", "v3"].map((content) =>
            episode(subjectId, { type: "architectural_decision", payload: { content, key: "db" } }),
          ),
        );
        await store.compileMemories(subjectId);
        const active = await store.searchMemories(subjectId);
        expect(active.map((memory) => memory.content)).toEqual(["v3"]);
        const statuses = (await store.getTimeline(subjectId)).memories.map(
          (memory) => memory.status,
        );
        expect(statuses.sort()).toEqual(["active", "superseded", "superseded"]);
      });

      describe("supersede needs knowledge of the older memory", () => {
        const decision = (
          subjectId: string,
          source: string,
          content: string,
          provenance: CreateEpisodeInput["provenance"] = {},
        ) =>
          episode(subjectId, {
            source,
            type: "architectural_decision",
            payload: { content, target: "legacy-cache" },
            provenance,
          });

        it("lets the same agent supersede its own decision", async () => {
          const subjectId = uniqueSubject("same-agent");
          await store.createEpisode(decision(subjectId, "planner-a", "Deprecate legacy-cache"));
          const [first] = (await store.compileMemories(subjectId)).memories;
          await store.createEpisode(
            decision(subjectId, "planner-a", "Keep legacy-cache after all"),
          );
          const [second] = (await store.compileMemories(subjectId)).memories;

          const active = await store.searchMemories(subjectId, { kind: "architectural_decision" });
          expect(active.map((memory) => memory.id)).toEqual([second?.id]);
          const memories = (await store.getTimeline(subjectId)).memories;
          expect(memories.find((memory) => memory.id === first?.id)?.status).toBe("superseded");
          expect(second?.metadata.contradicts).toBeUndefined();
        });

        it("lets another agent supersede a memory it declares it had read", async () => {
          const subjectId = uniqueSubject("informed");
          await store.createEpisode(decision(subjectId, "planner-a", "Deprecate legacy-cache"));
          const [first] = (await store.compileMemories(subjectId)).memories;
          await store.createEpisode(
            decision(subjectId, "planner-b", "Keep legacy-cache", {
              read_memory_ids: [first?.id ?? "missing"],
            }),
          );
          const [second] = (await store.compileMemories(subjectId)).memories;

          const active = await store.searchMemories(subjectId, { kind: "architectural_decision" });
          expect(active.map((memory) => memory.content)).toEqual(["Keep legacy-cache"]);
          expect(second?.metadata.contradicts).toBeUndefined();
        });

        it("keeps both active and records the contradiction when the writer had not seen it", async () => {
          const subjectId = uniqueSubject("uninformed");
          await store.createEpisode(decision(subjectId, "planner-a", "Deprecate legacy-cache"));
          const [first] = (await store.compileMemories(subjectId)).memories;
          // planner-b read something, but not planner-a's decision.
          await store.createEpisode(
            decision(subjectId, "planner-b", "Keep legacy-cache", {
              read_memory_ids: ["some-other-memory"],
            }),
          );
          const [second] = (await store.compileMemories(subjectId)).memories;

          const active = await store.searchMemories(subjectId, { kind: "architectural_decision" });
          expect(active.map((memory) => memory.content).sort()).toEqual([
            "Deprecate legacy-cache",
            "Keep legacy-cache",
          ]);
          expect(second?.metadata.contradicts).toEqual([first?.id]);
          // The older memory is left exactly as it was: nothing was done to it behind its back.
          const older = (await store.getTimeline(subjectId)).memories.find(
            (memory) => memory.id === first?.id,
          );
          expect(older).toEqual(first);
          // Compiling again changes nothing.
          expect((await store.compileMemories(subjectId)).memoriesCreated).toBe(0);
        });

        it("lets a resolution supersede the escalation it names, whoever announced it", async () => {
          const subjectId = uniqueSubject("resolution");
          const about = (source: string, type: string, content: string, escalationId: string) =>
            episode(subjectId, {
              source,
              type,
              payload: { content, target: "modules/x", escalationId },
            });
          await store.createEpisode(
            about("coder", "escalation", "Disputed modules/x", "modules/x#0"),
          );
          await store.compileMemories(subjectId);
          await store.createEpisode(
            about("planner", "escalation_resolution", "Resolved modules/x", "modules/x#0"),
          );
          await store.compileMemories(subjectId);
          const active = await store.searchMemories(subjectId);
          expect(active.map((memory) => memory.content)).toEqual(["Resolved modules/x"]);
          expect(active[0]?.metadata.contradicts).toBeUndefined();
        });

        describe("authority", () => {
          const withAuthority = (
            subjectId: string,
            source: string,
            content: string,
            authority: string,
            readMemoryIds: string[] = [],
          ) => ({
            ...decision(subjectId, source, content, { read_memory_ids: readMemoryIds }),
            metadata: { authority },
          });

          it("an agent's decision made after reading a person's does not supersede it: a dispute, which a person settles", async () => {
            const subjectId = uniqueSubject("authority");
            await store.createEpisode(
              withAuthority(subjectId, "alice", "Deprecate legacy-cache now", "user"),
            );
            const [person] = (await store.compileMemories(subjectId)).memories;
            expect(person?.metadata.authority).toBe("user");
            // The agent had read the person's decision (informed), and is newer: still no overrule.
            await store.createEpisode(
              withAuthority(
                subjectId,
                "planner",
                "Retain legacy-cache for mobile clients",
                "agent",
                [person?.id ?? "missing"],
              ),
            );
            const [guess] = (await store.compileMemories(subjectId)).memories;
            expect(guess?.metadata.authority).toBe("agent");
            expect(guess?.metadata.contradicts).toEqual([person?.id]);
            const disputed = await store.searchMemories(subjectId, {
              kind: "architectural_decision",
            });
            expect(disputed.map((memory) => memory.id).sort()).toEqual(
              [person?.id, guess?.id].sort(),
            );
            // The person's memory is left exactly as it was.
            const timeline = (await store.getTimeline(subjectId)).memories;
            expect(timeline.find((memory) => memory.id === person?.id)).toEqual(person);

            // Another person, knowing both sides, settles it: both are superseded.
            await store.createEpisode(
              withAuthority(
                subjectId,
                "bob",
                "Drop legacy-cache after the mobile release",
                "user",
                [person?.id ?? "missing", guess?.id ?? "missing"],
              ),
            );
            const [settled] = (await store.compileMemories(subjectId)).memories;
            expect(settled?.metadata.contradicts).toBeUndefined();
            const active = await store.searchMemories(subjectId, {
              kind: "architectural_decision",
            });
            expect(active.map((memory) => memory.id)).toEqual([settled?.id]);
            const statuses = new Map(
              (await store.getTimeline(subjectId)).memories.map((memory) => [
                memory.id,
                memory.status,
              ]),
            );
            expect(statuses.get(person?.id ?? "")).toBe("superseded");
            expect(statuses.get(guess?.id ?? "")).toBe("superseded");
          });

          it("a decision of equal authority (no authority named: agent) supersedes an agent's it had read", async () => {
            const subjectId = uniqueSubject("authority-equal");
            await store.createEpisode(
              withAuthority(subjectId, "planner-a", "Deprecate legacy-cache now", "agent"),
            );
            const [first] = (await store.compileMemories(subjectId)).memories;
            await store.createEpisode(
              decision(subjectId, "planner-b", "Retain legacy-cache for mobile clients", {
                read_memory_ids: [first?.id ?? "missing"],
              }),
            );
            await store.compileMemories(subjectId);
            const active = await store.searchMemories(subjectId, {
              kind: "architectural_decision",
            });
            expect(active.map((memory) => memory.content)).toEqual([
              "Retain legacy-cache for mobile clients",
            ]);
          });
        });

        it("records the same contradictions within one compile of a batch", async () => {
          const subjectId = uniqueSubject("uninformed-batch");
          await store.createEpisodesBatch([
            decision(subjectId, "planner-a", "Deprecate legacy-cache"),
            decision(subjectId, "planner-b", "Keep legacy-cache"),
            decision(subjectId, "planner-c", "Rewrite legacy-cache"),
          ]);
          const { memories } = await store.compileMemories(subjectId);
          const [a, b, c] = memories;
          expect(memories.map((memory) => memory.status)).toEqual(["active", "active", "active"]);
          expect(a?.metadata.contradicts).toBeUndefined();
          expect(b?.metadata.contradicts).toEqual([a?.id]);
          expect(c?.metadata.contradicts).toEqual([a?.id, b?.id]);
        });
      });
    });

    describe("compile jobs", () => {
      it("compileMemoriesAsync returns a job that completes", async () => {
        const subjectId = uniqueSubject("job");
        await store.createEpisode(episode(subjectId));
        const job = await store.compileMemoriesAsync(subjectId);
        expect(job).toMatchObject({ subjectId, jobId: expect.any(String) });
        expect(["pending", "running", "completed"]).toContain(job.status);
        const done = await waitFor(async () => {
          const status = await store.getCompileStatus(job.jobId);
          expect(status.status).toBe("completed");
          return status;
        });
        expect(done.memoriesCreated).toBe(1);
      });

      it("compileMemoriesWait resolves with the completed job", async () => {
        const subjectId = uniqueSubject("wait");
        await store.createEpisodesBatch([episode(subjectId), episode(subjectId)]);
        const job = await store.compileMemoriesWait(subjectId, { pollIntervalMs: 20 });
        expect(job.status).toBe("completed");
        expect(job.memoriesCreated).toBe(2);
      });

      it("rejects an unknown job id", async () => {
        await expect(store.getCompileStatus(`no-such-job-${randomUUID()}`)).rejects.toThrow();
      });
    });

    describe("searchMemories", () => {
      it("returns active memories newest first, filtered by kind and q", async () => {
        const subjectId = uniqueSubject("search");
        await store.createEpisodesBatch([
          episode(subjectId, { type: "implementation_note", payload: { content: "Alpha parser" } }),
          episode(subjectId, { type: "review_finding", payload: { content: "alpha has a bug" } }),
          episode(subjectId, {
            type: "implementation_note",
            payload: { content: "Beta 100% done" },
          }),
        ]);
        await store.compileMemories(subjectId);
        const all = await store.searchMemories(subjectId);
        expect(all.map((memory) => memory.content)).toEqual([
          "Beta 100% done",
          "alpha has a bug",
          "Alpha parser",
        ]);
        const notes = await store.searchMemories(subjectId, { kind: "implementation_note" });
        expect(notes.map((memory) => memory.content)).toEqual(["Beta 100% done", "Alpha parser"]);
        const alpha = await store.searchMemories(subjectId, { q: "ALPHA" });
        expect(alpha).toHaveLength(2);
        // '%' is literal text, not a wildcard.
        expect(await store.searchMemories(subjectId, { q: "100%" })).toHaveLength(1);
        expect(await store.searchMemories(subjectId, { limit: 1 })).toHaveLength(1);
        expect(await store.searchMemories(subjectId, { limit: 0 })).toEqual([]);
      });

      it("rejects a limit over 100", async () => {
        await expect(
          store.searchMemories(uniqueSubject("limit"), { limit: 101 }),
        ).rejects.toThrow();
      });
    });

    describe("getContext", () => {
      it("gives an unknown subject just the task header", async () => {
        const bundle = await store.getContext(uniqueSubject("empty"), "write the login page");
        expect(bundle.assembledContext).toBe("## Task\nwrite the login page\n");
        expect(bundle.facts).toEqual([]);
        expect(bundle.episodes).toEqual([]);
        expect(bundle.procedures).toEqual([]);
        expect(bundle.provenance).toEqual({
          fact_ids: [],
          summary_ids: [],
          procedure_ids: [],
          episode_ids: [],
        });
      });

      it("puts decisions before notes and leaves superseded memories out", async () => {
        const subjectId = uniqueSubject("context");
        await store.createEpisodesBatch([
          episode(subjectId, {
            type: "implementation_note",
            payload: { content: "login form uses the shared button" },
          }),
          episode(subjectId, {
            type: "architectural_decision",
            payload: { content: "login tokens are opaque", target: "auth.token" },
          }),
          episode(subjectId, {
            type: "architectural_decision",
            payload: { content: "login tokens are RS256 JWTs", target: "auth.token" },
          }),
        ]);
        await store.compileMemories(subjectId);
        const bundle = await store.getContext(subjectId, "build the login endpoint");
        const text = bundle.assembledContext;
        expect(text.startsWith("## Task\nbuild the login endpoint\n")).toBe(true);
        expect(text).toContain("RS256 JWTs");
        expect(text).not.toContain("opaque");
        expect(text.indexOf("RS256 JWTs")).toBeLessThan(text.indexOf("shared button"));
        expect(bundle.facts[0]?.kind).toBe("architectural_decision");
        expect(bundle.facts.every((memory) => memory.status === "active")).toBe(true);
        expect(bundle.provenance.fact_ids).toEqual(
          bundle.facts
            .filter((memory) => memory.kind !== "episode_summary")
            .map((memory) => memory.id),
        );
        expect(bundle.tokenEstimate).toBeGreaterThan(0);
      });

      it("is deterministic: the same state and request give the same bundle", async () => {
        const subjectId = uniqueSubject("determinism");
        await store.createEpisodesBatch(
          Array.from({ length: 20 }, (_, index) =>
            episode(subjectId, {
              type: index % 3 === 0 ? "architectural_decision" : "implementation_note",
              payload: { content: `decision ${index} about caching and tokens` },
            }),
          ),
        );
        await store.compileMemories(subjectId);
        const first = await store.getContext(subjectId, "caching tokens", { maxTokens: 120 });
        const second = await store.getContext(subjectId, "caching tokens", { maxTokens: 120 });
        expect(second).toEqual(first);
      });

      it("respects maxTokens", async () => {
        const subjectId = uniqueSubject("budget");
        await store.createEpisodesBatch(
          Array.from({ length: 40 }, (_, index) =>
            episode(subjectId, {
              payload: { content: `note ${index}: ${"lorem ipsum dolor sit amet ".repeat(4)}` },
            }),
          ),
        );
        await store.compileMemories(subjectId);
        const small = await store.getContext(subjectId, "lorem", { maxTokens: 200 });
        const large = await store.getContext(subjectId, "lorem", { maxTokens: 4000 });
        expect(small.tokenEstimate).toBeLessThanOrEqual(200);
        expect(small.facts.length).toBeGreaterThan(0);
        expect(small.facts.length).toBeLessThan(large.facts.length);
      });
    });

    describe("getTimeline", () => {
      it("pages episodes oldest first with limit and offset", async () => {
        const subjectId = uniqueSubject("timeline");
        const { episodes } = await store.createEpisodesBatch(
          Array.from({ length: 12 }, (_, index) =>
            episode(subjectId, { payload: { content: `step ${index}` } }),
          ),
        );
        const ids = episodes.map((item) => item.id);
        expect((await store.getTimeline(subjectId)).episodes.map((item) => item.id)).toEqual(ids);
        const page = await store.getTimeline(subjectId, { limit: 5, offset: 5 });
        expect(page.episodes.map((item) => item.id)).toEqual(ids.slice(5, 10));
      });

      it("gives an unknown subject empty lists", async () => {
        const subjectId = uniqueSubject("nobody");
        expect(await store.getTimeline(subjectId)).toEqual({
          subjectId,
          episodes: [],
          memories: [],
          nextCursor: null,
          episodesHasMore: false,
          memoriesHasMore: false,
        });
      });
    });

    describe("listSubjects and deleteSubject", () => {
      it("lists subjects with their counts and a real total", async () => {
        const subjectId = uniqueSubject("listed");
        await store.createEpisodesBatch([episode(subjectId), episode(subjectId)]);
        await store.compileMemories(subjectId);
        const found = [];
        let total = 0;
        for (let offset = 0; ; offset += 200) {
          const page = await store.listSubjects({ limit: 200, offset });
          total = page.total;
          found.push(...page.subjects);
          if (page.subjects.length < 200) break;
        }
        expect(found.find((subject) => subject.subjectId === subjectId)).toEqual({
          subjectId,
          episodeCount: 2,
          memoryCount: 2,
        });
        expect(total).toBe(found.length);
        const sorted = [...found].map((subject) => subject.subjectId);
        expect(sorted).toEqual([...sorted].sort());
      });

      it("deletes a subject's episodes and memories", async () => {
        const subjectId = uniqueSubject("deleted");
        await store.createEpisodesBatch([episode(subjectId), episode(subjectId)]);
        await store.compileMemories(subjectId);
        expect(await store.deleteSubject(subjectId)).toEqual({
          subjectId,
          episodesDeleted: 2,
          memoriesDeleted: 2,
        });
        expect(await store.getTimeline(subjectId)).toEqual({
          subjectId,
          episodes: [],
          memories: [],
          nextCursor: null,
          episodesHasMore: false,
          memoriesHasMore: false,
        });
        expect(await store.searchMemories(subjectId)).toEqual([]);
        expect(await store.deleteSubject(subjectId)).toEqual({
          subjectId,
          episodesDeleted: 0,
          memoriesDeleted: 0,
        });
      });
    });

    describe("watch", () => {
      it("delivers new episodes and memory changes, including supersede", async () => {
        const subjectId = uniqueSubject("watch");
        const changes: StoreChange[] = [];
        const subscription = store.watch(subjectId, (change) => changes.push(change));
        try {
          const first = await store.createEpisode(
            episode(subjectId, {
              type: "architectural_decision",
              payload: { content: "v1", key: "k" },
            }),
          );
          await waitFor(() => expect(changes).toHaveLength(1));
          expect(changes[0]).toEqual({ type: "episode", episode: first });
          await store.compileMemories(subjectId);
          await store.createEpisode(
            episode(subjectId, {
              type: "architectural_decision",
              payload: { content: "v2", key: "k" },
            }),
          );
          await store.compileMemories(subjectId);
          await waitFor(() => {
            const memories = changes.flatMap((change) =>
              change.type === "memory" ? [change.memory] : [],
            );
            expect(
              memories.some((memory) => memory.content === "v1" && memory.status === "superseded"),
            ).toBe(true);
            expect(
              memories.some((memory) => memory.content === "v2" && memory.status === "active"),
            ).toBe(true);
          });
          const episodes = changes.flatMap((change) => (change.type === "episode" ? [change] : []));
          expect(episodes).toHaveLength(2);
        } finally {
          subscription.close();
        }
      });

      it("replays existing episodes first when asked", async () => {
        const subjectId = uniqueSubject("replay");
        const { episodes } = await store.createEpisodesBatch([
          episode(subjectId),
          episode(subjectId),
        ]);
        const seen: string[] = [];
        const subscription = store.watch(
          subjectId,
          (change) => {
            if (change.type === "episode") seen.push(change.episode.id);
          },
          { replay: true },
        );
        try {
          const third = await store.createEpisode(episode(subjectId));
          await waitFor(() => expect(seen).toEqual([...episodes.map((item) => item.id), third.id]));
        } finally {
          subscription.close();
        }
      });

      it("stops delivering after close and never mixes subjects", async () => {
        const subjectId = uniqueSubject("closed");
        const closedSeen: StoreChange[] = [];
        const openSeen: StoreChange[] = [];
        const otherSeen: StoreChange[] = [];
        const closed = store.watch(subjectId, (change) => closedSeen.push(change));
        const open = store.watch(subjectId, (change) => openSeen.push(change));
        const other = store.watch(uniqueSubject("other"), (change) => otherSeen.push(change));
        closed.close();
        closed.close();
        try {
          await store.createEpisode(episode(subjectId));
          await waitFor(() => expect(openSeen).toHaveLength(1));
          expect(closedSeen).toEqual([]);
          expect(otherSeen).toEqual([]);
        } finally {
          open.close();
          other.close();
        }
      });
    });

    describeExactReadsContract(() => store, uniqueSubject);
  });
}
