import { describe, expect, it } from "vitest";
import type { StoreChange } from "../../../src/context/context-store.js";
import type { StatewaveClient } from "../../../src/context/statewave/statewave-client.js";
import { clientOf, fakeStatewave, note, settle, timelineReads } from "../support/fake-statewave.js";

/**
 * A client of a fake server with an idle watch of subject "s" for each of `names`, opened in that
 * order, their baselines read.
 */
async function watchedClient<const Name extends string>(...names: Name[]) {
  const server = fakeStatewave();
  const client = clientOf(server);
  const watches = Object.fromEntries(
    names.map((name) => [name, client.watch("s", () => undefined)]),
  ) as Record<Name, ReturnType<StatewaveClient["watch"]>>;
  await settle();
  return { server, client, watches };
}

/** What `client` delivers to a new watch of subject "s", as it arrives. */
function changesOf(client: StatewaveClient): StoreChange[] {
  const seen: StoreChange[] = [];
  client.watch("s", (change) => seen.push(change));
  return seen;
}

/** Writes a note and expects `seen` to hold just it, delivered live; then closes the client. */
async function expectNextWriteLive(client: StatewaveClient, seen: StoreChange[]): Promise<void> {
  await settle();
  const episode = await client.createEpisode(note);
  expect(seen).toEqual([{ type: "episode", episode }]);
  await client.close();
}

describe("StatewaveClient writes and watches", () => {
  it("holds a write issued after watch() until the watch's baseline is read", async () => {
    const server = fakeStatewave();
    const client = clientOf(server);
    const release = server.holdTimeline();
    const seen = changesOf(client);
    const written = client.createEpisode(note);
    await settle();
    expect(server.sent.map((request) => request.method)).not.toContain("POST");
    release();
    const episode = await written;
    // Not part of the baseline: delivered live, before the write resolved.
    expect(seen).toEqual([{ type: "episode", episode }]);
    await client.close();
  });

  it.each(["compileMemories", "compileMemoriesWait"] as const)(
    "%s delivers the new memories to this client's watchers before it resolves",
    async (method) => {
      const server = fakeStatewave();
      server.jobStatuses.splice(0, 1, "running", "completed");
      const client = clientOf(server);
      const seen = changesOf(client);
      await settle();
      await client[method]("s");
      expect(seen.map((change) => change.type)).toEqual(["memory"]);
      await client.close();
    },
  );

  it("closing the last watch of a subject stops its poller, and a new watch reads a new baseline", async () => {
    const {
      server,
      client,
      watches: { first },
    } = await watchedClient("first");
    first.close();
    await settle();
    const before = timelineReads(server.sent);
    await client.createEpisode(note);
    expect(timelineReads(server.sent)).toBe(before);
    const seen: StoreChange[] = [];
    client.watch("s", (change) => seen.push(change), { replay: true });
    await settle();
    expect(timelineReads(server.sent)).toBeGreaterThan(before);
    expect(seen.map((change) => change.type)).toEqual(["episode"]);
    await client.close();
  });

  it("closing one watch keeps the poller for a watch still waiting to join", async () => {
    const {
      client,
      watches: { first },
    } = await watchedClient("first");
    const seen = changesOf(client);
    first.close();
    await expectNextWriteLive(client, seen);
  });

  it("closing a watch while others are still joined leaves the poller to the last one to leave", async () => {
    const {
      client,
      watches: { first, second },
    } = await watchedClient("first", "second");
    first.close();
    // Joins after the first close; the second close is then the last to leave.
    const seen = changesOf(client);
    second.close();
    await expectNextWriteLive(client, seen);
  });

  it("closing a watch twice does not take the poller from a watch that joined in between", async () => {
    const {
      client,
      watches: { first, second },
    } = await watchedClient("first", "second");
    first.close();
    const third = client.watch("s", () => undefined);
    second.close();
    // After the second close's check (which the third, joined by then, passes), the third leaves
    // as a fourth joins; only then does the first close again.
    const seen: StoreChange[] = [];
    queueMicrotask(() => {
      client.watch("s", (change) => seen.push(change));
      third.close();
    });
    first.close();
    await expectNextWriteLive(client, seen);
  });

  it("closing a watch after close() leaves the subject's next poller alone", async () => {
    const {
      client,
      watches: { old },
    } = await watchedClient("old");
    old.close();
    void client.close();
    const seen = changesOf(client);
    await expectNextWriteLive(client, seen);
  });

  it("close() stops every watch: writes no longer poll and listeners hear nothing", async () => {
    const server = fakeStatewave();
    const client = clientOf(server);
    const seen = changesOf(client);
    client.watch("t", (change) => seen.push(change));
    await settle();
    await client.close();
    const before = timelineReads(server.sent);
    await client.createEpisode(note);
    await settle();
    expect(timelineReads(server.sent)).toBe(before);
    expect(seen).toEqual([]);
  });
});
