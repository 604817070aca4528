import { describe, expect, it } from "vitest";
import type {
  ContextStore,
  CreateEpisodeInput,
  Memory,
  StoreChange,
} from "../../src/context/context-store.js";
import { StoreValidationError } from "../../src/context/errors/store-validation-error.js";
import { listAllMemories } from "../../src/context/memory-query.js";
import { StatewaveAPIError } from "../../src/context/statewave/errors/statewave-api-error.js";

/**
 * The exact reads every `ContextStore` answers the same (issue 36): complete past any page size,
 * exact on targets, prefixes and statuses, stable cursors, null for an unknown id, and a named
 * error for bad input (a `StoreValidationError` in process, a 422 naming the field through serve).
 * Called from `describeStoreContract`, so it runs on every backend.
 */
export function describeExactReadsContract(
  store: () => ContextStore,
  uniqueSubject: (label: string) => string,
): void {
  const decision = (
    subjectId: string,
    target: string,
    content = `Decide ${target}`,
  ): CreateEpisodeInput => ({
    subjectId,
    source: "architect",
    type: "architectural_decision",
    payload: { content, target },
  });

  /** Writes the inputs in batches of 100 (the batch limit) and compiles once. */
  async function writeAndCompile(subjectId: string, inputs: CreateEpisodeInput[]): Promise<void> {
    for (let start = 0; start < inputs.length; start += 100) {
      await store().createEpisodesBatch(inputs.slice(start, start + 100));
    }
    await store().compileMemories(subjectId);
  }

  /** The rejection names `field`: a StoreValidationError in process, a 422 through serve. */
  async function expectBadInput(read: Promise<unknown>, field: string): Promise<void> {
    const error: unknown = await read.then(
      () => undefined,
      (caught: unknown) => caught,
    );
    if (error instanceof StatewaveAPIError) {
      expect(error.statusCode).toBe(422);
      expect(JSON.stringify(error.details)).toContain(`"${field}"`);
      return;
    }
    expect(error).toBeInstanceOf(StoreValidationError);
    expect((error as StoreValidationError).field).toBe(field);
  }

  const contents = (memories: readonly Memory[]) => memories.map((memory) => memory.content);

  describe("exact reads", () => {
    it("finds the one decision on a target behind 1,001 newer ones on other targets", async () => {
      const subjectId = uniqueSubject("exact-1001");
      const others = Array.from({ length: 1001 }, (_, index) =>
        decision(subjectId, `other/${index}`),
      );
      await writeAndCompile(subjectId, [
        decision(subjectId, "legacy-billing", "Retire legacy-billing"),
        ...others,
      ]);

      const page = await store().listMemories(subjectId, {
        kind: "architectural_decision",
        targets: ["legacy-billing"],
      });
      expect(contents(page.memories)).toEqual(["Retire legacy-billing"]);
      expect(page.nextCursor).toBeNull();

      // A page of 100 says more follow, and paging to the end gives every one, once, newest first.
      const first = await store().listMemories(subjectId, { kind: "architectural_decision" });
      expect(first.memories).toHaveLength(100);
      expect(first.nextCursor).toEqual(expect.any(String));
      const all = await listAllMemories(store(), subjectId, { kind: "architectural_decision" });
      expect(all).toHaveLength(1002);
      expect(new Set(all.map((memory) => memory.id)).size).toBe(1002);
      expect(all[0]?.content).toBe("Decide other/1000");
      expect(all.at(-1)?.content).toBe("Retire legacy-billing");
      const small = await listAllMemories(store(), subjectId, {
        kind: "architectural_decision",
        limit: 333,
      });
      expect(small.map((memory) => memory.id)).toEqual(all.map((memory) => memory.id));
    }, 120_000);

    it("matches targets exactly, several at once, and by prefix", async () => {
      const subjectId = uniqueSubject("exact-targets");
      await writeAndCompile(subjectId, [
        ...["modules/a", "modules/b", "modulesX", "other/modules/a", "Modules/c", "modules/"].map(
          (target) => decision(subjectId, target),
        ),
        {
          subjectId,
          source: "architect",
          type: "architectural_decision",
          payload: { content: "Retire legacy-billing, everywhere" },
        },
      ]);
      const targetsOf = (memories: readonly Memory[]) =>
        memories.map((memory) => memory.metadata.target).sort();
      const exact = await store().listMemories(subjectId, {
        targets: ["modules/a", "modulesX", "nope"],
      });
      expect(targetsOf(exact.memories)).toEqual(["modules/a", "modulesX"]);
      const prefixed = await store().listMemories(subjectId, { targetPrefix: "modules/" });
      expect(targetsOf(prefixed.memories)).toEqual(["modules/", "modules/a", "modules/b"]);
      const both = await store().listMemories(subjectId, {
        targetPrefix: "modules/",
        targets: ["modules/b", "modulesX"],
      });
      expect(targetsOf(both.memories)).toEqual(["modules/b"]);
      expect((await store().listMemories(subjectId, { targets: [] })).memories).toEqual([]);
      const untargeted = await store().listMemories(subjectId, { untargeted: true });
      expect(contents(untargeted.memories)).toEqual(["Retire legacy-billing, everywhere"]);
      expect(
        (await store().listMemories(subjectId, { kind: "implementation_note" })).memories,
      ).toEqual([]);
    });

    it("reads by status: active by default, superseded or any on request, newest first", async () => {
      const subjectId = uniqueSubject("exact-status");
      await writeAndCompile(subjectId, [decision(subjectId, "auth", "Use HS256")]);
      await writeAndCompile(subjectId, [decision(subjectId, "auth", "Use RS256")]);
      const read = (status?: "active" | "superseded" | "any") =>
        store()
          .listMemories(subjectId, { targets: ["auth"], ...(status ? { status } : {}) })
          .then((page) => contents(page.memories));
      expect(await read()).toEqual(["Use RS256"]);
      expect(await read("active")).toEqual(["Use RS256"]);
      expect(await read("superseded")).toEqual(["Use HS256"]);
      expect(await read("any")).toEqual(["Use RS256", "Use HS256"]);
    });

    it("pages by cursor without repeats or gaps while others write", async () => {
      const subjectId = uniqueSubject("exact-cursor");
      await writeAndCompile(
        subjectId,
        Array.from({ length: 5 }, (_, index) => decision(subjectId, `t/${index}`)),
      );
      const seen: string[] = [];
      let page = await store().listMemories(subjectId, { limit: 2 });
      seen.push(...contents(page.memories));
      await writeAndCompile(
        subjectId,
        Array.from({ length: 3 }, (_, index) => decision(subjectId, `new/${index}`)),
      );
      while (page.nextCursor !== null) {
        page = await store().listMemories(subjectId, { limit: 2, cursor: page.nextCursor });
        seen.push(...contents(page.memories));
      }
      expect(seen).toEqual([4, 3, 2, 1, 0].map((index) => `Decide t/${index}`));
    });

    it("reads a memory and an episode by id; an unknown id, or another subject's, is null", async () => {
      const subjectId = uniqueSubject("exact-id");
      const other = uniqueSubject("exact-id-other");
      const episode = await store().createEpisode(decision(subjectId, "auth", "Use HS256"));
      await store().compileMemories(subjectId);
      await writeAndCompile(subjectId, [decision(subjectId, "auth", "Use RS256")]);
      const [old] = (await store().listMemories(subjectId, { status: "superseded" })).memories;
      expect(old).toBeDefined();
      const memory = await store().getMemory(subjectId, old?.id ?? "");
      expect(memory).toMatchObject({ id: old?.id, status: "superseded", content: "Use HS256" });
      expect(await store().getEpisode(subjectId, episode.id)).toMatchObject({
        id: episode.id,
        payload: { content: "Use HS256", target: "auth" },
      });
      expect(await store().getMemory(subjectId, "00000000-0000-0000-0000-000000000000")).toBeNull();
      expect(await store().getEpisode(subjectId, "no-such-episode")).toBeNull();
      expect(await store().getMemory(other, old?.id ?? "")).toBeNull();
      expect(await store().getEpisode(other, episode.id)).toBeNull();
    });

    it("gives the changes since a cursor, a supersede included, in bounded pages", async () => {
      const subjectId = uniqueSubject("exact-changes");
      await writeAndCompile(subjectId, [decision(subjectId, "auth", "Use HS256")]);
      const changes: StoreChange[] = [];
      let page = await store().changesSince(subjectId, null, { limit: 1 });
      changes.push(...page.changes);
      while (page.hasMore) {
        page = await store().changesSince(subjectId, page.cursor, { limit: 1 });
        changes.push(...page.changes);
      }
      expect(changes.map((change) => change.type).sort()).toEqual(["episode", "memory"]);
      await writeAndCompile(subjectId, [decision(subjectId, "auth", "Use RS256")]);
      const next = await store().changesSince(subjectId, page.cursor);
      expect(next.hasMore).toBe(false);
      const memories = next.changes.flatMap((change) =>
        change.type === "memory" ? [change.memory] : [],
      );
      expect(memories.map((memory) => [memory.content, memory.status]).sort()).toEqual([
        ["Use HS256", "superseded"],
        ["Use RS256", "active"],
      ]);
      const quiet = await store().changesSince(subjectId, next.cursor);
      expect(quiet).toMatchObject({ changes: [], hasMore: false });
    });

    it("pages the timeline by cursor to the end, writes between pages included once", async () => {
      const subjectId = uniqueSubject("exact-timeline");
      await writeAndCompile(
        subjectId,
        Array.from({ length: 150 }, (_, index) => decision(subjectId, `t/${index}`)),
      );
      const seen: string[] = [];
      let timeline = await store().getTimeline(subjectId, { limit: 60 });
      seen.push(...timeline.episodes.map((episode) => episode.id));
      await store().createEpisode(decision(subjectId, "late"));
      for (let pages = 0; timeline.nextCursor && pages < 10; pages += 1) {
        timeline = await store().getTimeline(subjectId, { limit: 60, cursor: timeline.nextCursor });
        seen.push(...timeline.episodes.map((episode) => episode.id));
      }
      expect(timeline.nextCursor).toBeNull();
      expect(seen).toHaveLength(151);
      expect(new Set(seen).size).toBe(151);
    });

    it("refuses bad input with the field named", async () => {
      const subjectId = uniqueSubject("exact-bad");
      await expectBadInput(store().listMemories(subjectId, { cursor: "not-a-cursor" }), "cursor");
      await expectBadInput(store().listMemories(subjectId, { cursor: "c1.1.1" }), "cursor");
      await expectBadInput(store().listMemories(subjectId, { limit: 0 }), "limit");
      await expectBadInput(store().listMemories(subjectId, { limit: 501 }), "limit");
      await expectBadInput(
        store().listMemories(subjectId, { status: "retired" as "active" }),
        "status",
      );
      await expectBadInput(store().changesSince(subjectId, "m1.5"), "cursor");
      await expectBadInput(
        store().listMemories(subjectId, { untargeted: true, targetPrefix: "a" }),
        "untargeted",
      );
      await expectBadInput(store().getTimeline(subjectId, { cursor: "t1.x.1" }), "cursor");
    });
  });
}
