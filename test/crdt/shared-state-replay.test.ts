import { describe, expect, it } from "vitest";
import type { ContextStore } from "../../src/context/context-store.js";
import type { SharedState } from "../../src/crdt/shared-state.js";
import { sharedStatesPerTest } from "./support/shared-states.js";

const { memoryStore, open, readerAndWriter } = sharedStatesPerTest({ live: false });

async function episodeTypes(store: ContextStore): Promise<string[]> {
  const timeline = await store.getTimeline("run-1", { limit: 1000 });
  return timeline.episodes.map((episode) => episode.type);
}

/**
 * The writer's replica, snapshotting every third update; its fixed peer id makes a reopen the same
 * replica, which must carry on its count from the timeline.
 */
const openWriter = (store: ContextStore) => open(store, "writer", { peerId: 5, snapshotEvery: 3 });

/** The episode type each of two puts of `plan/tags` ended on: an update, or the snapshot it completed. */
async function typesOfTwoPuts(
  store: ContextStore,
  state: SharedState,
  first: string,
  second: string,
): Promise<string[]> {
  const types: string[] = [];
  for (const tag of [first, second]) {
    await state.put("plan", "tags", [tag]);
    types.push((await episodeTypes(store)).at(-1) ?? "none");
  }
  return types;
}

/** `count` episodes of another kind on the subject, as a `SharedContext` writes beside the state. */
async function addNotes(store: ContextStore, count: number): Promise<void> {
  await store.createEpisodesBatch(
    Array.from({ length: count }, (_, index) => ({
      subjectId: "run-1",
      source: "planner",
      type: "note",
      payload: { content: `note ${index}` },
    })),
  );
}

describe("SharedState replaying the timeline", () => {
  describe("opening", () => {
    it("reads every page of a timeline longer than one, and so does sync", async () => {
      const store = memoryStore();
      const early = await open(store, "early");
      const writer = await open(store, "writer");
      await writer.put("plan", "tags", ["auth"]);
      for (const count of [100, 50]) await addNotes(store, count);
      // The 152nd episode: on the second page of a hundred.
      await writer.put("plan", "tags", ["crypto"]);
      const late = await open(store, "late");
      await early.sync();
      expect(late.get("plan", "tags")).toStrictEqual(["auth", "crypto"]);
      expect(early.get("plan", "tags")).toStrictEqual(["auth", "crypto"]);
    });

    it("imports state updates only, not another kind of episode that carries one", async () => {
      // Another store's real update, copied into an episode that is not a state update (a tool
      // that archives payloads, say): the state is not what it holds.
      const elsewhere = memoryStore();
      const writer = await open(elsewhere, "writer");
      await writer.put("plan", "tags", ["archived"]);
      const [update] = (await elsewhere.getTimeline("run-1", { limit: 10 })).episodes;
      expect(update?.type).toBe("state_update");
      const store = memoryStore();
      await store.createEpisode({
        subjectId: "run-1",
        source: "archiver",
        type: "note",
        payload: update?.payload ?? {},
      });
      const reader = await open(store, "reader");
      expect(reader.get("plan", "tags")).toBeUndefined();
    });

    it("counts toward the next snapshot only the updates, not the other episodes", async () => {
      const store = memoryStore();
      const first = await openWriter(store);
      await first.put("plan", "tags", ["a"]);
      await addNotes(store, 2);
      await first.close();
      // One update so far: the third, not the second, completes the snapshot's count.
      const reopened = await openWriter(store);
      expect(await typesOfTwoPuts(store, reopened, "b", "c")).toStrictEqual([
        "state_update",
        "state_snapshot",
      ]);
    });

    it("counts toward the next snapshot from the latest of several", async () => {
      const store = memoryStore();
      const first = await openWriter(store);
      // Snapshots after "c" and after "f"; "g" is the one update after the latest.
      for (const tag of ["a", "b", "c", "d", "e", "f", "g"]) await first.put("plan", "tags", [tag]);
      await first.close();
      const reopened = await openWriter(store);
      expect(await typesOfTwoPuts(store, reopened, "h", "i")).toStrictEqual([
        "state_update",
        "state_snapshot",
      ]);
    });

    it("imports a snapshot that is the first episode of the timeline", async () => {
      const source = memoryStore();
      const writer = await open(source, "writer", { snapshotEvery: 1 });
      await writer.put("plan", "tags", ["auth"]);
      const snapshot = (await source.getTimeline("run-1")).episodes.find(
        (episode) => episode.type === "state_snapshot",
      );
      if (snapshot === undefined) throw new Error("the writer wrote no snapshot");
      // A timeline that keeps only the snapshot, as one compacted by hand would.
      const compacted = memoryStore();
      const { subjectId, source: agentId, type, payload } = snapshot;
      await compacted.createEpisode({ subjectId, source: agentId, type, payload });
      const reader = await open(compacted, "reader");
      expect(reader.get("plan", "tags")).toStrictEqual(["auth"]);
    });

    it("a resolution episode is not an announcement: a dispute reopened after it is announced", async () => {
      const store = memoryStore();
      const architect = await open(store, "architect", { peerId: 1 });
      const reviewer = await open(store, "reviewer", { peerId: 2 });
      const coder = await open(store, "coder", { peerId: 3 });
      const lead = await open(store, "lead", { peerId: 9 });
      await architect.put("plan", "token", "RS256");
      await reviewer.put("plan", "token", "HS256");
      // The lead resolves before the reviewer's replica, the announcer, has read the dispute.
      await lead.sync();
      await lead.resolve("plan/token#0", "RS256", { by: "lead" });
      // Written without seeing the resolution, which does not cover it: the dispute reopens,
      // and its last contender is now the lead's resolution.
      await coder.put("plan", "token", "ES256");
      await lead.close();
      // Reopened (a restart), the lead's replica raises the open dispute and announces it: the
      // resolution episode on the timeline is not an announcement.
      const reopened = await open(store, "lead", { peerId: 9 });
      expect(
        reopened.escalations().map((escalation) => [escalation.id, escalation.resolution]),
      ).toStrictEqual([["plan/token#0", undefined]]);
      await reopened.sync();
      const timeline = await store.getTimeline("run-1", { limit: 1000 });
      const announcements = timeline.episodes.filter((episode) => episode.type === "escalation");
      expect(
        announcements.map((episode) => [episode.source, episode.payload.escalationId]),
      ).toStrictEqual([["lead", "plan/token#0"]]);
    });
  });

  describe("following", () => {
    it("a live replica imports each update as it arrives, not only the first", async () => {
      const { reader, writeTags } = await readerAndWriter({ live: true });
      await writeTags(["a"]);
      expect(reader.get("plan", "tags")).toStrictEqual(["a"]);
      await writeTags(["b"]);
      expect(reader.get("plan", "tags")).toStrictEqual(["a", "b"]);
    });

    it("its own snapshot read back does not restart a replica's count", async () => {
      const store = memoryStore();
      const writer = await open(store, "writer", { snapshotEvery: 3 });
      for (const tag of ["a", "b", "c", "d"]) await writer.put("plan", "tags", [tag]);
      // Reads back the snapshot it wrote after "c": "d" still counts.
      await writer.sync();
      expect(await typesOfTwoPuts(store, writer, "e", "f")).toStrictEqual([
        "state_update",
        "state_snapshot",
      ]);
    });

    it("an escalation another replica announced is not announced again by a later contender", async () => {
      const store = memoryStore();
      const architect = await open(store, "architect", { peerId: 1 });
      const reviewer = await open(store, "reviewer", { peerId: 2 });
      const coder = await open(store, "coder", { peerId: 3 });
      await architect.put("plan", "token", "RS256");
      await reviewer.put("plan", "token", "HS256");
      // The reviewer's replica, the last of the two contenders it sees, announces.
      await reviewer.sync();
      expect((await episodeTypes(store)).filter((type) => type === "escalation")).toHaveLength(1);
      // The coder had seen neither: its write joins the same escalation, and makes its own
      // replica the last contender's, which reads the announcement with the updates.
      await coder.put("plan", "token", "ES256");
      await coder.sync();
      expect(coder.escalations().map((escalation) => escalation.id)).toStrictEqual([
        "plan/token#0",
      ]);
      expect(coder.escalations()[0]?.contenders).toHaveLength(3);
      expect((await episodeTypes(store)).filter((type) => type === "escalation")).toHaveLength(1);
    });
  });
});
