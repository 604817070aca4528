import { afterEach, describe, expect, it } from "vitest";
import type { StoreChange } from "../../../src/context/context-store.js";
import { EmbeddedStore } from "../../../src/context/embedded/embedded-store.js";
import { StatewaveClient } from "../../../src/context/statewave/statewave-client.js";
import { type RunningServer, startServer } from "../../../src/server/listen.js";
import { waitFor } from "../store-contract.js";

describe("StatewaveClient.watch", () => {
  let server: RunningServer | undefined;
  const clients: StatewaveClient[] = [];
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((client) => client.close()));
    await server?.close();
    server = undefined;
  });
  async function setUp() {
    const store = new EmbeddedStore({ path: ":memory:" });
    server = await startServer({ store, port: 0 });
    const make = () => {
      const client = new StatewaveClient({ baseUrl: server?.url ?? "", pollIntervalMs: 10 });
      clients.push(client);
      return client;
    };
    return { store, watcher: make(), writer: make() };
  }

  it("delivers another writer's episodes by polling, in timeline order, each once", async () => {
    const { watcher, writer } = await setUp();
    const seen: StoreChange[] = [];
    // replay: whether the baseline poll lands before or after the writes, each arrives once.
    watcher.watch("remote", (change) => seen.push(change), { replay: true });
    const written = [];
    for (let index = 0; index < 5; index++) {
      written.push(
        await writer.createEpisode({
          subjectId: "remote",
          source: "w",
          type: "message",
          payload: { index },
        }),
      );
    }
    await waitFor(() => expect(seen.filter((change) => change.type === "episode")).toHaveLength(5));
    expect(seen.flatMap((change) => (change.type === "episode" ? [change.episode] : []))).toEqual(
      written,
    );
  });

  it("reports a vanished server to onError and keeps polling", async () => {
    const { watcher } = await setUp();
    const errors: unknown[] = [];
    watcher.watch("gone", () => undefined, { onError: (error) => errors.push(error) });
    await server?.close();
    server = undefined;
    await waitFor(() => expect(errors.length).toBeGreaterThanOrEqual(2));
    expect((errors[0] as Error).name).toBe("StatewaveConnectionError");
  });

  it("a failing listener does not stop the feed", async () => {
    const { watcher } = await setUp();
    const errors: unknown[] = [];
    let calls = 0;
    watcher.watch(
      "throwing",
      () => {
        calls++;
        throw new Error("listener bug");
      },
      { onError: (error) => errors.push(error) },
    );
    await watcher.createEpisode({ subjectId: "throwing", source: "a", type: "t", payload: {} });
    await watcher.createEpisode({ subjectId: "throwing", source: "a", type: "t", payload: {} });
    expect(calls).toBe(2);
    expect(errors).toHaveLength(2);
  });
});

describe("StatewaveClient.watch: one poller per subject", () => {
  it("serves every watch of a subject from one poller, replaying history to a late one", async () => {
    const { createStatewaveEmulator } = await import(
      "../../../src/server/compat/statewave-v0-7-1.js"
    );
    const emulator = createStatewaveEmulator();
    const client = new StatewaveClient({ fetch: emulator.clientFetch, pollIntervalMs: 5 });
    const first: StoreChange[] = [];
    const second: StoreChange[] = [];
    const a = client.watch("s", (change) => first.push(change));
    const b = client.watch("s", (change) => second.push(change));
    await client.createEpisode({ subjectId: "s", source: "a", type: "t", payload: {} });
    expect(first).toHaveLength(1);
    expect(second).toHaveLength(1);
    const late: StoreChange[] = [];
    const c = client.watch("s", (change) => late.push(change), { replay: true });
    await waitFor(() => expect(late).toHaveLength(1));
    const before = emulator.requests.get("GET /v1/timeline") ?? 0;
    await new Promise((resolve) => setTimeout(resolve, 60));
    const polls = (emulator.requests.get("GET /v1/timeline") ?? 0) - before;
    // Three watches, one poller: ~2 timeline reads (episodes, memories) per 5 ms round, not 6.
    expect(polls).toBeLessThanOrEqual(2 * Math.ceil(60 / 5) + 4);
    for (const subscription of [a, b, c]) subscription.close();
    await client.close();
  });
});
