import { describe, expect, it } from "vitest";
import type { Episode } from "../../src/context/context-store.js";
import type { EmbeddedStore } from "../../src/context/embedded/embedded-store.js";
import { readSnapshot, snapshotEpisode } from "../../src/crdt/state-episodes.js";
import { sharedStatesPerTest } from "./support/shared-states.js";

/**
 * The episodes shared state writes to a subject's timeline: what a reader of the timeline (a
 * person, another agent, Statewave's supersession) sees of an escalation and its resolution, and
 * the snapshots a replica opens from.
 */

const { memoryStore, open } = sharedStatesPerTest({ live: false });

async function episodesOfType(store: EmbeddedStore, type: string): Promise<Episode[]> {
  const timeline = await store.getTimeline("run-1", { limit: 1000 });
  return timeline.episodes.filter((episode) => episode.type === type);
}

/**
 * Two agents write `key` without seeing each other, then both read everything. Fixed peers, so
 * the contenders come in the same order every run (peer order breaks the tie).
 */
async function dispute(store: EmbeddedStore, key: string, values: [unknown, unknown]) {
  const architect = await open(store, "architect", { clockStart: 100, peerId: 1 });
  const reviewer = await open(store, "reviewer", { clockStart: 200, peerId: 2 });
  await architect.put("plan", key, values[0]);
  await reviewer.put("plan", key, values[1]);
  await architect.sync();
  await reviewer.sync();
  return { architect, reviewer };
}

describe("escalation episode", () => {
  it("says which field is disputed, that values differ, and who wrote what", async () => {
    const store = memoryStore();
    await dispute(store, "token", ["RS256", "HS256"]);
    const [announcement, ...more] = await episodesOfType(store, "escalation");
    expect(more).toHaveLength(0);
    expect(announcement?.payload).toStrictEqual({
      content:
        'Disputed plan/token: different values written concurrently (architect: "RS256"; reviewer: "HS256")',
      target: "plan/token",
      escalationId: "plan/token#0",
      namespace: "plan",
      field: "token",
      reason: "concurrent-register",
      contenders: [
        { agentId: "architect", value: "RS256", at: 101 },
        { agentId: "reviewer", value: "HS256", at: 201 },
      ],
      raisedAt: 201,
    });
  });

  it("says the kinds differ when one agent wrote a list and the other a string", async () => {
    const store = memoryStore();
    await dispute(store, "owner", [["alice"], "bob"]);
    const [announcement] = await episodesOfType(store, "escalation");
    expect(announcement?.payload).toMatchObject({
      content:
        'Disputed plan/owner: different kinds written concurrently (architect: ["alice"]; reviewer: "bob")',
      target: "plan/owner",
      reason: "kind-mismatch",
    });
  });
});

describe("resolution episode", () => {
  it("says what the field was resolved to, targets the escalation's field, and names who decided", async () => {
    const store = memoryStore();
    const { architect } = await dispute(store, "token", ["RS256", "HS256"]);
    const [escalation] = architect.escalations();
    await architect.resolve(escalation?.id ?? "", { alg: "RS256" }, { by: "lead" });
    const [resolution] = await episodesOfType(store, "escalation_resolution");
    expect(resolution?.source).toBe("lead");
    expect(resolution?.payload).toMatchObject({
      content: 'Resolved plan/token to {"alg":"RS256"}',
      target: "plan/token",
      escalationId: "plan/token#0",
      namespace: "plan",
      field: "token",
      value: { alg: "RS256" },
      by: "lead",
    });
  });
});

describe("snapshot episode", () => {
  it("carries the snapshot, its writer and the operations it covers, read back as written", async () => {
    const store = memoryStore();
    const payload = {
      snapshot: new Uint8Array([1, 2, 250]),
      peer: "7",
      version: { "7": 3, "9": 12 },
    };
    const episode = await store.createEpisode(snapshotEpisode("run-1", "writer", payload));
    expect(episode).toMatchObject({ subjectId: "run-1", source: "writer", type: "state_snapshot" });
    expect(readSnapshot(episode)).toStrictEqual(payload);
  });

  it("reads only the numeric counts of a version", async () => {
    const store = memoryStore();
    const episode = await store.createEpisode({
      subjectId: "run-1",
      source: "writer",
      type: "state_snapshot",
      payload: { snapshot: "AQI=", peer: "7", version: { "7": 3, "9": "12", "10": null } },
    });
    expect(readSnapshot(episode)?.version).toStrictEqual({ "7": 3 });
  });

  it.each([
    ["missing", undefined],
    ["null", null],
    ["a string", "7:3"],
    ["a number", 3],
    ["an array", [3, 12]],
  ])("is ignored when its version is %s", async (_, version) => {
    const store = memoryStore();
    const episode = await store.createEpisode({
      subjectId: "run-1",
      source: "writer",
      type: "state_snapshot",
      payload:
        version === undefined
          ? { snapshot: "AQI=", peer: "7" }
          : { snapshot: "AQI=", peer: "7", version },
    });
    expect(readSnapshot(episode)).toBeUndefined();
  });

  it("a replica opens from the updates when the latest snapshot's version is malformed", async () => {
    const store = memoryStore();
    const writer = await open(store, "writer");
    await writer.put("plan", "tags", ["auth"]);
    await store.createEpisode({
      subjectId: "run-1",
      source: "writer",
      type: "state_snapshot",
      payload: { snapshot: "AQI=", peer: "7", version: null },
    });
    await writer.put("plan", "tags", ["crypto"]);
    const reader = await open(store, "reader");
    expect(reader.toJSON()).toStrictEqual({ plan: { tags: ["auth", "crypto"] } });
  });
});
