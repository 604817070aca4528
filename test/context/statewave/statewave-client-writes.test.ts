import { describe, expect, it } from "vitest";
import type { StoreChange } from "../../../src/context/context-store.js";
import { clientOf, fakeStatewave, note, settle, timelineReads } from "../support/fake-statewave.js";

describe("StatewaveClient writes and watches", () => {
  it("holds a write issued after watch() until the watch's baseline is read", async () => {
    const server = fakeStatewave();
    const client = clientOf(server);
    const release = server.holdTimeline();
    const seen: StoreChange[] = [];
    client.watch("s", (change) => seen.push(change));
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
      const seen: StoreChange[] = [];
      client.watch("s", (change) => seen.push(change));
      await settle();
      await client[method]("s");
      expect(seen.map((change) => change.type)).toEqual(["memory"]);
      await client.close();
    },
  );

  it("closing the last watch of a subject stops its poller, and a new watch reads a new baseline", async () => {
    const server = fakeStatewave();
    const client = clientOf(server);
    const first = client.watch("s", () => undefined);
    await settle();
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
    const server = fakeStatewave();
    const client = clientOf(server);
    const first = client.watch("s", () => undefined);
    await settle();
    const seen: StoreChange[] = [];
    client.watch("s", (change) => seen.push(change));
    first.close();
    await settle();
    const episode = await client.createEpisode(note);
    expect(seen).toEqual([{ type: "episode", episode }]);
    await client.close();
  });

  it("closing a watch while others are still joined leaves the poller to the last one to leave", async () => {
    const server = fakeStatewave();
    const client = clientOf(server);
    const first = client.watch("s", () => undefined);
    const second = client.watch("s", () => undefined);
    await settle();
    first.close();
    // Joins after the first close; the second close is then the last to leave.
    const seen: StoreChange[] = [];
    client.watch("s", (change) => seen.push(change));
    second.close();
    await settle();
    const episode = await client.createEpisode(note);
    expect(seen).toEqual([{ type: "episode", episode }]);
    await client.close();
  });

  it("closing a watch twice does not take the poller from a watch that joined in between", async () => {
    const server = fakeStatewave();
    const client = clientOf(server);
    const first = client.watch("s", () => undefined);
    const second = client.watch("s", () => undefined);
    await settle();
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
    await settle();
    const episode = await client.createEpisode(note);
    expect(seen).toEqual([{ type: "episode", episode }]);
    await client.close();
  });

  it("closing a watch after close() leaves the subject's next poller alone", async () => {
    const server = fakeStatewave();
    const client = clientOf(server);
    const old = client.watch("s", () => undefined);
    await settle();
    old.close();
    void client.close();
    const seen: StoreChange[] = [];
    client.watch("s", (change) => seen.push(change));
    await settle();
    const episode = await client.createEpisode(note);
    expect(seen).toEqual([{ type: "episode", episode }]);
    await client.close();
  });

  it("close() stops every watch: writes no longer poll and listeners hear nothing", async () => {
    const server = fakeStatewave();
    const client = clientOf(server);
    const seen: StoreChange[] = [];
    client.watch("s", (change) => seen.push(change));
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
