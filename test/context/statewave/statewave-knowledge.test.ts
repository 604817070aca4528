import { describe, expect, it } from "vitest";
import type { Episode, JsonObject, Memory } from "../../../src/context/context-store.js";
import {
  applyRule,
  derivedDraftOf,
  resolveKnowledge,
  typedMemory,
} from "../../../src/context/statewave/statewave-knowledge.js";

/** A memory as a real Statewave server returns it: its own kind, `metadata: {}`. */
function serverMemory(id: string, fields: Partial<Memory> = {}): Memory {
  return {
    id,
    subjectId: "s",
    kind: "episode_summary",
    content: `content of ${id}`,
    summary: `content of ${id}`,
    confidence: 0.8,
    validFrom: `2030-01-01T00:00:0${id.slice(-1)}.000Z`,
    validTo: null,
    sourceEpisodeIds: [`episode-${id}`],
    metadata: {},
    status: "active",
    createdAt: "2030-01-01T00:00:00.000Z",
    updatedAt: "2030-01-01T00:00:00.000Z",
    ...fields,
  };
}

function decisionEpisode(
  id: string,
  source: string,
  payload: JsonObject,
  provenance: JsonObject = {},
): Episode {
  return {
    id,
    subjectId: "s",
    source,
    type: "architectural_decision",
    payload,
    metadata: {},
    provenance,
    createdAt: "2030-01-01T00:00:00.000Z",
  };
}

/** The typed memory a server memory becomes once its source episode is known. */
function typed(
  id: string,
  source: string,
  payload: JsonObject,
  provenance: JsonObject = {},
): Memory {
  const episode = decisionEpisode(`episode-${id}`, source, payload, provenance);
  return typedMemory(serverMemory(id), (episodeId) =>
    episodeId === episode.id ? episode : undefined,
  );
}

const noEpisodes = (): Episode | undefined => undefined;

describe("typedMemory", () => {
  it("takes the kind `serve` kept in metadata.kind and drops that key", () => {
    const memory = serverMemory("m1", {
      kind: "episode_summary",
      metadata: { kind: "architectural_decision", source: "planner", target: "cache" },
    });
    const result = typedMemory(memory, noEpisodes);
    expect(result).toEqual({
      ...memory,
      kind: "architectural_decision",
      metadata: { source: "planner", target: "cache" },
    });
    expect(derivedDraftOf(result)).toBeUndefined();
  });

  it("returns the memory itself when metadata.kind is already its kind", () => {
    const memory = serverMemory("m1", {
      kind: "procedure",
      metadata: { kind: "procedure", source: "lead" },
    });
    expect(typedMemory(memory, noEpisodes)).toBe(memory);
  });

  it.each([
    ["an empty metadata.kind", { kind: "" }],
    ["a metadata.kind that is not a string", { kind: 3 }],
  ])("ignores %s and types from the source episode", (_, metadata) => {
    const episode = decisionEpisode("episode-m1", "planner", { content: "Keep x", target: "x" });
    const result = typedMemory(serverMemory("m1", { metadata }), () => episode);
    expect(result.kind).toBe("architectural_decision");
    expect(result.metadata).toMatchObject({ source: "planner", target: "x" });
  });

  it("leaves a memory that already names its source (embedded store, older serve) as it is", () => {
    const memory = serverMemory("m1", { metadata: { source: "coder" } });
    const episode = decisionEpisode("episode-m1", "planner", { content: "Keep x", target: "x" });
    expect(typedMemory(memory, () => episode)).toBe(memory);
  });

  it("types only summaries: a profile_fact is one sentence of its episode, not the episode", () => {
    const memory = serverMemory("m1", { kind: "profile_fact" });
    const episode = decisionEpisode("episode-m1", "planner", { content: "Keep x", target: "x" });
    expect(typedMemory(memory, () => episode)).toBe(memory);
  });

  it("does not look an episode up when the memory names none", () => {
    const memory = serverMemory("m1", { sourceEpisodeIds: [] });
    const asked: string[] = [];
    const result = typedMemory(memory, (id) => {
      asked.push(id);
      return decisionEpisode(id, "planner", { content: "Keep x" });
    });
    expect(result).toBe(memory);
    expect(asked).toEqual([]);
  });

  it("leaves the memory as it is when its source episode is unknown or carries no knowledge", () => {
    const memory = serverMemory("m1");
    expect(typedMemory(memory, noEpisodes)).toBe(memory);
    const machinery = { ...decisionEpisode("episode-m1", "crdt", {}), type: "state_update" };
    expect(typedMemory(memory, () => machinery)).toBe(memory);
  });

  it("types a summary from its source episode through the compile rules", () => {
    const memory = serverMemory("m1", { metadata: { statewave: "kept" } });
    const episode = decisionEpisode(
      "episode-m1",
      "planner",
      { content: "Deprecate cache", target: "cache", escalationId: "esc-1" },
      { read_memory_ids: ["m0"] },
    );
    const result = typedMemory(memory, (id) => (id === "episode-m1" ? episode : undefined));
    // The draft is not part of the memory anyone compares or sends: only derivedDraftOf sees it.
    expect(result).toEqual({
      ...memory,
      kind: "architectural_decision",
      metadata: {
        source: "planner",
        episodeType: "architectural_decision",
        target: "cache",
        escalationId: "esc-1",
        statewave: "kept",
      },
    });
    expect(Object.keys(result)).toEqual(Object.keys(memory));
    expect(derivedDraftOf(result)).toMatchObject({
      kind: "architectural_decision",
      source: "planner",
      target: "cache",
      readMemoryIds: ["m0"],
    });
    expect(derivedDraftOf(memory)).toBeUndefined();
  });

  it("keeps what the server put in metadata over what the episode says", () => {
    const memory = serverMemory("m1", { metadata: { target: "server-side" } });
    const episode = decisionEpisode("episode-m1", "planner", { content: "Keep x", target: "x" });
    expect(typedMemory(memory, () => episode).metadata.target).toBe("server-side");
  });
});

describe("applyRule", () => {
  it("supersedes an older memory of the same kind and target its writer knew", () => {
    const old = typed("m1", "planner", { content: "Keep cache", target: "cache" });
    const newer = typed("m2", "planner", { content: "Drop cache", target: "cache" });
    expect(applyRule(newer, [old])).toEqual({
      superseded: [{ ...old, status: "superseded", validTo: newer.validFrom }],
      memory: newer,
    });
  });

  it("records a contradiction when the writer had not seen the older memory", () => {
    const first = typed("m1", "planner-a", { content: "Keep cache", target: "cache" });
    const second = typed("m2", "planner-a", { content: "Keep cache warm", target: "cache" });
    const newer = typed("m3", "planner-b", { content: "Drop cache", target: "cache" });
    const outcome = applyRule(newer, [first, second]);
    expect(outcome.superseded).toEqual([]);
    expect(outcome.memory).toEqual({
      ...newer,
      metadata: { ...newer.metadata, contradicts: ["m1", "m2"] },
    });
    // Still typed: a later rule reads the same draft.
    expect(derivedDraftOf(outcome.memory)).toBe(derivedDraftOf(newer));
    expect(Object.keys(outcome.memory)).toEqual(Object.keys(newer));
  });

  it("supersedes what the writer declared it read and contradicts the rest", () => {
    const known = typed("m1", "planner-a", { content: "Keep cache", target: "cache" });
    const unknown = typed("m2", "planner-c", { content: "Shard cache", target: "cache" });
    const newer = typed(
      "m3",
      "planner-b",
      { content: "Drop cache", target: "cache" },
      { read_memory_ids: ["m1"] },
    );
    const outcome = applyRule(newer, [known, unknown]);
    expect(outcome.superseded.map((memory) => [memory.id, memory.status])).toEqual([
      ["m1", "superseded"],
    ]);
    expect(outcome.memory.metadata.contradicts).toEqual(["m2"]);
  });

  it("supersedes another writer's memory about the same escalation", () => {
    const old = typed("m1", "lead", { content: "x is disputed", target: "x", escalationId: "e1" });
    const newer = typed("m2", "planner", { content: "x = 2", target: "x", escalationId: "e1" });
    expect(applyRule(newer, [old]).superseded.map((memory) => memory.id)).toEqual(["m1"]);
  });

  it.each([
    ["itself", (_old: Memory, newer: Memory) => newer],
    ["another target", (old: Memory) => ({ ...old, metadata: { ...old.metadata, target: "y" } })],
    ["another kind", (old: Memory) => ({ ...old, kind: "review_finding" })],
    ["no target", (old: Memory) => ({ ...old, metadata: { source: "planner-a" } })],
    ["a superseded memory", (old: Memory) => ({ ...old, status: "superseded" as const })],
  ])("leaves alone %s", (_, olderOf) => {
    const newer = typed("m2", "planner-b", { content: "Drop x", target: "x" });
    const old = typed("m1", "planner-a", { content: "Keep x", target: "x" });
    expect(applyRule(newer, [olderOf(old, newer)])).toEqual({ superseded: [], memory: newer });
  });

  it.each([
    [
      "not typed client-side",
      serverMemory("m2", {
        kind: "architectural_decision",
        metadata: { source: "planner-b", target: "x" },
      }),
      { target: "x" },
    ],
    ["without a target", typed("m2", "planner-b", { content: "Drop x" }), {}],
  ])("returns a memory %s unchanged", (_, newer, target) => {
    const old = typed("m1", "planner-a", { content: "Keep x", ...target });
    const outcome = applyRule(newer, [old]);
    expect(outcome.superseded).toEqual([]);
    expect(outcome.memory).toBe(newer);
  });

  it("ignores an older memory whose source or escalation is not a string", () => {
    const newer = typed("m2", "planner", { content: "Drop x", target: "x", escalationId: "e1" });
    const old = serverMemory("m1", {
      kind: "architectural_decision",
      metadata: { target: "x", source: 7, escalationId: 1 },
    });
    expect(applyRule(newer, [old]).memory.metadata.contradicts).toEqual(["m1"]);
  });
});

describe("resolveKnowledge", () => {
  it("applies the rule in the order the episodes were written, whatever the input order", () => {
    const first = typed("m1", "planner-a", { content: "Keep cache", target: "cache" });
    const second = typed("m2", "planner-b", { content: "Drop cache", target: "cache" });
    const third = typed("m3", "planner-a", { content: "Keep cache, final", target: "cache" });
    const untyped = serverMemory("m4", { kind: "profile_fact" });
    const order = new Map([
      ["m1", 1],
      ["m2", 2],
      ["m3", 3],
      ["m4", 4],
    ]);
    const resolved = resolveKnowledge([third, untyped, second, first], (memory) =>
      Number(order.get(memory.id)),
    );
    // Returned in the input order.
    expect(resolved.map((memory) => [memory.id, memory.status])).toEqual([
      ["m3", "active"],
      ["m4", "active"],
      ["m2", "active"],
      ["m1", "superseded"],
    ]);
    expect(resolved[2]?.metadata.contradicts).toEqual(["m1"]);
    // planner-a restated: it supersedes its own m1 and contradicts m2, which it never read.
    expect(resolved[0]?.metadata.contradicts).toEqual(["m2"]);
    expect(resolved[3]?.validTo).toBe(third.validFrom);
    expect(resolved[1]).toBe(untyped);
  });
});
