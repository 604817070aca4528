import { afterEach, describe, expect, it } from "vitest";
import type { StoreChange } from "../../../src/context/context-store.js";
import { EmbeddedStore } from "../../../src/context/embedded/embedded-store.js";

const stores: EmbeddedStore[] = [];
afterEach(async () => {
  await Promise.all(stores.splice(0).map((store) => store.close()));
});

function openStore() {
  const store = new EmbeddedStore({ path: ":memory:" });
  stores.push(store);
  return store;
}

const note = (content: string) => ({
  subjectId: "run",
  source: "coder",
  type: "message",
  payload: { content },
});

function contents(changes: readonly StoreChange[]): string[] {
  return changes.flatMap((change) =>
    change.type === "episode" ? [String(change.episode.payload.content)] : [],
  );
}

describe("EmbeddedStore.watch", () => {
  it("delivers a write a listener makes to its own subject, after the current one", async () => {
    const store = openStore();
    const seen: StoreChange[] = [];
    let reply: Promise<unknown> = Promise.resolve();
    store.watch("run", (change) => {
      seen.push(change);
      if (change.type === "episode" && change.episode.payload.content === "question") {
        reply = store.createEpisode(note("answer"));
      }
    });
    await store.createEpisode(note("question"));
    await reply;
    expect(contents(seen)).toEqual(["question", "answer"]);
  });

  it("stops delivering a round as soon as the listener closes its watch", async () => {
    const store = openStore();
    const seen: StoreChange[] = [];
    const subscription = store.watch("run", (change) => {
      seen.push(change);
      subscription.close();
    });
    await store.createEpisodesBatch([note("first"), note("second")]);
    expect(contents(seen)).toEqual(["first"]);
  });

  it("replays a subject longer than one delivery page, every episode once", async () => {
    const store = openStore();
    const count = 520;
    for (let start = 0; start < count; start += 100) {
      await store.createEpisodesBatch(
        Array.from({ length: Math.min(100, count - start) }, (_, index) =>
          note(`n${start + index}`),
        ),
      );
    }
    const seen: StoreChange[] = [];
    store.watch("run", (change) => seen.push(change), { replay: true });
    await new Promise((resolve) => setImmediate(resolve));
    expect(contents(seen)).toEqual(Array.from({ length: count }, (_, index) => `n${index}`));
  });
});
