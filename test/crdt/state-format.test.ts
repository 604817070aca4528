import { readFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import type { CreateEpisodeInput, JsonObject } from "../../src/context/context-store.js";
import { EmbeddedStore } from "../../src/context/embedded/embedded-store.js";
import type { NamespaceSchema } from "../../src/crdt/field-kind.js";
import { SharedState } from "../../src/crdt/shared-state.js";
import { decodeBytes } from "../../src/crdt/state-episodes.js";
import { StateReplica } from "../../src/crdt/state-replica.js";

/**
 * Documents written before entries moved to one list per peer (format 1: every entry in the one
 * root list `entries`) still load, read the same, and keep merging with today's writes. The
 * fixture was written by that code (`fixtures/write-format-v1.ts`): a snapshot and updates.
 */
interface Fixture {
  subjectId: string;
  schema: Record<string, NamespaceSchema>;
  episodes: Array<{ type: string; source: string; payload: JsonObject }>;
  expected: {
    state: Record<string, Record<string, unknown>>;
    escalations: unknown[];
    attribution: Record<string, unknown>;
  };
}

const fixture = JSON.parse(
  readFileSync(new URL("./fixtures/state-format-v1.json", import.meta.url), "utf8"),
) as Fixture;

// As JSON text: the state has a key named `constructor`, which toStrictEqual reads as a type.
const json = (value: unknown): string => JSON.stringify(value);

const stores: EmbeddedStore[] = [];
const states: SharedState[] = [];
afterEach(async () => {
  for (const state of states.splice(0)) await state.close();
  for (const store of stores.splice(0)) await store.close();
});

async function storeWithFixture(): Promise<EmbeddedStore> {
  const store = new EmbeddedStore({ path: ":memory:" });
  stores.push(store);
  for (const episode of fixture.episodes) {
    const input: CreateEpisodeInput = { subjectId: fixture.subjectId, ...episode };
    await store.createEpisode(input);
  }
  return store;
}

async function open(store: EmbeddedStore, agentId: string, peerId: number): Promise<SharedState> {
  let clock = 1_800_000_000_000;
  const state = await SharedState.open({
    store,
    subjectId: fixture.subjectId,
    agentId,
    peerId,
    schema: fixture.schema,
    now: () => ++clock,
    live: false,
  });
  states.push(state);
  return state;
}

describe("stored format 1 (one root list of entries)", () => {
  it("opens from its snapshot and updates with the same state, escalations and attribution", async () => {
    const reader = await open(await storeWithFixture(), "reader", 55);
    expect(json(reader.toJSON())).toBe(json(fixture.expected.state));
    expect(reader.escalations()).toStrictEqual(fixture.expected.escalations);
    for (const [key, attribution] of Object.entries(fixture.expected.attribution)) {
      expect(json(reader.attribution("plan", key))).toBe(json(attribution));
    }
  });

  it("reads the same from every update alone, in reverse order, as from the snapshot", () => {
    const updates = fixture.episodes
      .filter((episode) => episode.type === "state_update")
      .map((episode) => decodeBytes(String(episode.payload.update)));
    const replica = new StateReplica({
      subjectId: fixture.subjectId,
      peerId: 66,
      schema: fixture.schema,
    });
    for (const update of [...updates].reverse()) replica.import([update]);
    expect(json(replica.toJSON())).toBe(json(fixture.expected.state));
  });

  it("keeps merging: a reopened writer of format 1 and a new replica write on, every replica converges", async () => {
    const store = await storeWithFixture();
    // Peer 22 wrote the fixture's security entries: reopened, it carries on after its counter.
    const security = await open(store, "security", 22);
    const newcomer = await open(store, "newcomer", 77);
    await security.put("plan", "tags", ["audit"]);
    await security.put("plan", "hits", 4);
    await newcomer.put("plan", "notes", "ship it");
    await newcomer.resolve("plan/owner#0:kind", ["alice", "bob"], { by: "lead" });
    await security.sync();
    await newcomer.sync();
    const reader = await open(store, "reader", 88);
    const state = reader.toJSON().plan ?? {};
    expect(state.tags).toStrictEqual(["auth", "crypto", "review", "audit"]);
    expect(state.hits).toBe(10);
    expect(state.notes).toBe("use JWT\nrotate keys\ntests pass\nship it");
    expect(state.owner).toStrictEqual(["alice", "bob"]);
    expect(json(reader.toJSON())).toBe(json(security.toJSON()));
    expect(json(reader.toJSON())).toBe(json(newcomer.toJSON()));
    expect(reader.escalations()).toStrictEqual(security.escalations());
  });
});
