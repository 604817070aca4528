import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { CreateEpisodeInput, JsonObject } from "../../../src/context/context-store.js";
import { EmbeddedStore } from "../../../src/context/embedded/embedded-store.js";
import { StoreValidationError } from "../../../src/context/errors/store-validation-error.js";

function input(subjectId: string, index: number, payload: JsonObject = {}): CreateEpisodeInput {
  return {
    subjectId,
    source: "agent",
    type: "implementation_note",
    payload: { content: `note ${index}`, ...payload },
  };
}

describe("EmbeddedStore options.groupCommit", () => {
  let dir: string;
  let store: EmbeddedStore;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "shared-ctx-group-"));
    store = new EmbeddedStore({ path: join(dir, "store.db"), groupCommit: true });
  });
  afterEach(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("commits concurrent creates together, each once, in call order, visible to another connection", async () => {
    const episodes = await Promise.all(
      Array.from({ length: 50 }, (_, index) => store.createEpisode(input("s", index))),
    );
    const other = new Database(join(dir, "store.db"), { readonly: true });
    const ids = other.prepare("SELECT id FROM episodes ORDER BY seq").pluck().all();
    other.close();
    expect(ids).toEqual(episodes.map((episode) => episode.id));
    expect(new Set(ids).size).toBe(50);
  });

  it("rejects bad input at once and still commits the rest of the group", async () => {
    const results = await Promise.allSettled([
      store.createEpisode(input("s", 1)),
      store.createEpisode({ ...input("s", 2), subjectId: "" }),
      store.createEpisode(input("s", 3, { big: 10n as unknown as JsonObject })),
      store.createEpisode(input("s", 4)),
    ]);
    expect(results.map((result) => result.status)).toEqual([
      "fulfilled",
      "rejected",
      "rejected",
      "fulfilled",
    ]);
    for (const result of results) {
      if (result.status === "rejected") expect(result.reason).toBeInstanceOf(StoreValidationError);
    }
    const timeline = await store.getTimeline("s");
    expect(timeline.episodes.map((episode) => episode.payload.content)).toEqual([
      "note 1",
      "note 4",
    ]);
  });

  it("writes creates already accepted when the store closes", async () => {
    const pending = store.createEpisode(input("s", 1));
    await store.close();
    const episode = await pending;
    const reopened = new EmbeddedStore({ path: join(dir, "store.db") });
    expect((await reopened.getTimeline("s")).episodes.map((row) => row.id)).toEqual([episode.id]);
    await reopened.close();
  });

  it("delivers watch changes after the commit, once per episode", async () => {
    const seen: string[] = [];
    const subscription = store.watch("s", (change) => {
      if (change.type === "episode") seen.push(change.episode.id);
    });
    const episodes = await Promise.all(
      [1, 2, 3].map((index) => store.createEpisode(input("s", index))),
    );
    expect(seen).toEqual(episodes.map((episode) => episode.id));
    subscription.close();
  });
});
