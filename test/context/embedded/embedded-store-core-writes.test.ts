import { join } from "node:path";
import Database from "better-sqlite3";
import { describe, expect, it, vi } from "vitest";
import type {
  CreateEpisodeInput,
  Episode,
  JsonObject,
  StoreChange,
} from "../../../src/context/context-store.js";
import type { EmbeddedStore } from "../../../src/context/embedded/embedded-store.js";
import { StoreClosedError } from "../../../src/context/errors/store-closed-error.js";
import { StoreValidationError } from "../../../src/context/errors/store-validation-error.js";
import { embeddedStoresPerTest } from "../../support/embedded-stores.js";
import { useTempDir } from "../../support/temp-dir.js";

const open = embeddedStoresPerTest();

function note(subjectId: string, content: string, extra: Partial<CreateEpisodeInput> = {}) {
  return {
    subjectId,
    source: "agent",
    type: "implementation_note",
    payload: { content },
    ...extra,
  };
}

/** The episode ids a watcher of `subjectId` on `store` has seen. */
function watchEpisodes(store: { watch: EmbeddedStore["watch"] }, subjectId: string): string[] {
  const seen: string[] = [];
  store.watch(subjectId, (change: StoreChange) => {
    if (change.type === "episode") seen.push(change.episode.id);
  });
  return seen;
}

describe("EmbeddedStore writes", () => {
  const tempDir = useTempDir("shared-ctx-core-writes-");

  describe("a value JSON cannot hold", () => {
    const big = { big: 10n } as unknown as JsonObject;
    it.each([
      { groupCommit: false, field: "payload" },
      { groupCommit: false, field: "metadata" },
      { groupCommit: false, field: "provenance" },
      { groupCommit: true, field: "payload" },
      { groupCommit: true, field: "metadata" },
      { groupCommit: true, field: "provenance" },
    ])(
      "in $field is refused naming the field (groupCommit: $groupCommit)",
      async ({ groupCommit, field }) => {
        const store = open({ groupCommit });
        const error = await store
          .createEpisode({ ...note("s", "x"), [field]: big })
          .catch((caught: unknown) => caught);
        expect(error).toBeInstanceOf(StoreValidationError);
        expect(error).toMatchObject({ field, expected: "a JSON-serialisable object" });
        expect((error as Error).message).toBe(
          `Invalid ${field}: expected a JSON-serialisable object`,
        );
      },
    );

    it("in a batch is refused naming the episode and the field, and nothing is written", async () => {
      const store = open();
      const error = await store
        .createEpisodesBatch([note("s", "a"), { ...note("s", "b"), provenance: big }])
        .catch((caught: unknown) => caught);
      expect(error).toMatchObject({ field: "episodes[1].provenance" });
      expect((await store.getTimeline("s")).episodes).toEqual([]);
    });
  });

  describe("options.groupCommit", () => {
    it("commits a create made after a group committed in a group of its own", async () => {
      const store = open({ groupCommit: true });
      const first = await store.createEpisode(note("s", "first"));
      const second = await store.createEpisode(note("s", "second"));
      const timeline = await store.getTimeline("s");
      expect(timeline.episodes.map((episode) => episode.id)).toEqual([first.id, second.id]);
    });

    /** A file store whose database refuses to store an episode with content "poison". */
    function poisoned(): EmbeddedStore {
      const path = join(tempDir(), "store.db");
      const store = open({ path, groupCommit: true });
      // A second connection installs a trigger: it stands in for a driver error (SQLITE_FULL, …).
      const db = new Database(path);
      db.exec(`CREATE TRIGGER refuse_poison BEFORE INSERT ON episodes
        WHEN json_extract(NEW.payload, '$.content') = 'poison'
        BEGIN SELECT RAISE(ABORT, 'refused'); END;`);
      db.close();
      return store;
    }

    it("fails the whole group when the database refuses one of its creates: none is stored", async () => {
      const store = poisoned();
      const results = await Promise.allSettled(
        ["before", "poison", "after"].map((content) => store.createEpisode(note("s", content))),
      );
      expect(results.map((result) => result.status)).toEqual(["rejected", "rejected", "rejected"]);
      for (const result of results) {
        if (result.status === "rejected") {
          expect(result.reason).toBeInstanceOf(Database.SqliteError);
          expect(result.reason).toMatchObject({ code: "SQLITE_CONSTRAINT_TRIGGER" });
        }
      }
      expect((await store.getTimeline("s")).episodes).toEqual([]);
      // The store goes on: the next group commits.
      await expect(store.createEpisode(note("s", "later"))).resolves.toMatchObject({
        payload: { content: "later" },
      });
    });

    it("groups every create made before the next check phase, also those made from its callbacks", async () => {
      const store = poisoned();
      // One group: made in the same turn.
      const first = store.createEpisode(note("s", "a"));
      const second = store.createEpisode(note("s", "b"));
      // Made in the check phase that commits a and b, after that commit: the next group.
      const poison = first.then(() => store.createEpisode(note("s", "poison")));
      let late: Promise<Episode> | undefined;
      // Made later in that same check phase: the same group as "poison", so refused with it.
      await new Promise<void>((resolve) =>
        setImmediate(() => {
          late = store.createEpisode(note("s", "late"));
          resolve();
        }),
      );
      const results = await Promise.allSettled([first, second, poison, late]);
      expect(results.map((result) => result.status)).toEqual([
        "fulfilled",
        "fulfilled",
        "rejected",
        "rejected",
      ]);
      const timeline = await store.getTimeline("s");
      expect(timeline.episodes.map((episode) => episode.payload.content)).toEqual(["a", "b"]);
    });

    it("notifies the watchers of every subject and tenant the group wrote to", async () => {
      const store = open({ groupCommit: true });
      const views = [store, store.forTenant("a"), store.forTenant("b"), store.forTenant("")];
      const seen = views.flatMap((view) => [watchEpisodes(view, "s"), watchEpisodes(view, "t")]);
      const episodes = await Promise.all(
        views.flatMap((view) => [
          view.createEpisode(note("s", "x")),
          view.createEpisode(note("t", "y")),
        ]),
      );
      expect(seen).toEqual(episodes.map((episode) => [episode.id]));
    });

    it("refuses a create a listener makes while the store closes, with StoreClosedError", async () => {
      const store = open({ groupCommit: true });
      let fromListener: Promise<Episode> | undefined;
      store.watch("s", (change) => {
        if (change.type === "episode" && change.episode.payload.content === "first") {
          fromListener = store.createEpisode(note("s", "from the listener"));
        }
      });
      const first = store.createEpisode(note("s", "first"));
      // close() commits the accepted create, whose watcher then writes again.
      await store.close();
      await expect(first).resolves.toMatchObject({ payload: { content: "first" } });
      expect(fromListener).toBeDefined();
      await expect(fromListener).rejects.toBeInstanceOf(StoreClosedError);
    });
  });

  describe("watching polls for other processes' writes", () => {
    it("only where another process can write: a file, not memory", () => {
      vi.useFakeTimers();
      const inMemory = open({ path: ":memory:" });
      inMemory.watch("s", () => {});
      const temporary = open({ path: "" });
      temporary.watch("s", () => {});
      expect(vi.getTimerCount()).toBe(0);
      const file = open({ path: join(tempDir(), "store.db") });
      file.watch("s", () => {});
      expect(vi.getTimerCount()).toBe(1);
    });
  });
});
