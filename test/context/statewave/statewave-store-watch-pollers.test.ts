import { describe, expect, it } from "vitest";
import type { StoreChange } from "../../../src/context/context-store.js";
import type { StatewaveStore } from "../../../src/context/statewave/statewave-store.js";
import { emulatedStatewaveStoresPerTest } from "../support/emulated-statewave-stores.js";

/**
 * `StatewaveStore.watch` shares one poller per subject among its watches and stops it when the
 * last one closes. The poll interval is long: rounds run because this store wrote, so what a
 * watcher receives and which requests reach the server follow from the writes alone.
 */
const openStore = emulatedStatewaveStoresPerTest();

function connect() {
  const requests: string[] = [];
  const store = openStore({
    wrap: (emulator) => (input, init) => {
      const url = new URL(input instanceof Request ? input.url : String(input));
      requests.push(`${init?.method ?? "GET"} ${url.pathname}`);
      return emulator(input, init);
    },
    pollIntervalMs: 60_000,
  });
  const write = (content: string) =>
    store.createEpisode({
      subjectId: "run",
      source: "planner",
      type: "implementation_note",
      payload: { content },
    });
  return { store, requests, write };
}

function watchRun(store: StatewaveStore) {
  const changes: StoreChange[] = [];
  const subscription = store.watch("run", (change) => changes.push(change));
  const contents = () =>
    changes.flatMap((change) =>
      change.type === "episode" ? [change.episode.payload.content] : [],
    );
  return { contents, close: () => subscription.close() };
}

/** One round of the poller on a capped server: the episode log, the timeline and search. */
const oneRound = ["GET /v1/timeline", "GET /v1/timeline", "GET /v1/memories/search"];

describe("StatewaveStore.watch pollers", () => {
  it("tells every watch of a subject of a write, from one round of reads", async () => {
    const { store, requests, write } = connect();
    await write("one");
    const first = watchRun(store);
    const second = watchRun(store);
    await write("two");
    requests.length = 0;
    await write("three");
    expect(requests).toEqual(["POST /v1/episodes", ...oneRound]);
    expect(first.contents()).toEqual(["two", "three"]);
    expect(second.contents()).toEqual(["two", "three"]);
    first.close();
    second.close();
  });

  it("stops reading once the last watch of the subject is closed", async () => {
    const { store, requests, write } = connect();
    const first = watchRun(store);
    const second = watchRun(store);
    await write("one");
    first.close();
    await write("two");
    second.close();
    requests.length = 0;
    await write("three");
    expect(requests).toEqual(["POST /v1/episodes"]);
    expect(second.contents()).toEqual(["one", "two"]);
  });

  it("keeps a watch started right after the subject's last one closed (an effect re-run)", async () => {
    const { store, write } = connect();
    await write("one");
    const first = watchRun(store);
    first.close();
    const second = watchRun(store);
    await write("two");
    expect(second.contents()).toEqual(["two"]);
    second.close();
  });

  it("closes a watch once: closing an old one again leaves a newer watch running", async () => {
    const { store, write } = connect();
    const old = watchRun(store);
    await write("one");
    old.close();
    await write("two");
    const newer = watchRun(store);
    old.close();
    await write("three");
    expect(newer.contents()).toEqual(["three"]);
    newer.close();
  });
});
