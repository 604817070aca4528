import { describe, expect, it } from "vitest";
import type { Authority } from "../../src/context/authority.js";
import {
  compileEpisode,
  defaultConfidenceByKind,
  episodeText,
  firstCodePoints,
  memoryKindFor,
  readMemoryIdsOf,
  supersedeCandidateOf,
  supersedes,
} from "../../src/context/compile-memories.js";
import type { JsonObject } from "../../src/context/context-store.js";

describe("memoryKindFor", () => {
  it.each([
    ["architectural_decision", "architectural_decision"],
    ["implementation_note", "implementation_note"],
    ["review_finding", "review_finding"],
    ["procedure", "procedure"],
    ["decision", "architectural_decision"],
    ["message", "episode_summary"],
    ["something_else", "episode_summary"],
  ])("%s -> %s", (type, kind) => {
    expect(memoryKindFor(type)).toBe(kind);
  });
});

describe("episodeText", () => {
  it("takes content, then text, then summary", () => {
    expect(episodeText({ content: "c", text: "t", summary: "s" })).toBe("c");
    expect(episodeText({ text: "t", summary: "s" })).toBe("t");
    expect(episodeText({ summary: "s" })).toBe("s");
    expect(episodeText({ content: "  ", text: "t" })).toBe("t");
  });

  it("renders chat messages and non-string values", () => {
    expect(
      episodeText({
        messages: [
          { role: "user", content: "hi" },
          { role: "agent", content: "yo" },
        ],
      }),
    ).toBe("user: hi\nagent: yo");
    expect(episodeText({ content: 42 })).toBe("42");
    expect(episodeText({ content: { a: 1 } })).toBe('{"a":1}');
    expect(episodeText({ messages: "not a list" })).toBe("");
    expect(episodeText({})).toBe("");
  });

  it("skips null fields, and trims what it renders", () => {
    expect(episodeText({ content: null, text: "t" })).toBe("t");
    expect(episodeText({ content: true })).toBe("true");
    expect(episodeText({ messages: [{ role: "user", content: "hi  " }] })).toBe("user: hi");
    expect(episodeText({ messages: ["  plain  "] })).toBe("plain");
  });
});

describe("compileEpisode", () => {
  it("builds a draft with kind, confidence, target and attribution", () => {
    expect(
      compileEpisode({
        type: "architectural_decision",
        source: "architect",
        payload: { content: "Use RS256", target: "auth.token", confidence: 0.65 },
      }),
    ).toEqual({
      kind: "architectural_decision",
      content: "Use RS256",
      summary: "Use RS256",
      confidence: 0.65,
      target: "auth.token",
      source: "architect",
      readMemoryIds: [],
      metadata: {
        source: "architect",
        episodeType: "architectural_decision",
        target: "auth.token",
      },
    });
  });

  it("uses payload.key as the target and the per-kind default confidence", () => {
    const draft = compileEpisode({
      type: "review_finding",
      source: "r",
      payload: { text: "x", key: "k" },
    });
    expect(draft?.target).toBe("k");
    expect(draft?.confidence).toBe(defaultConfidenceByKind.review_finding);
  });

  it.each([[-0.1], [1.5], ["0.9"], [Number.NaN]])(
    "ignores an out-of-range confidence %s",
    (confidence) => {
      const draft = compileEpisode({
        type: "implementation_note",
        source: "a",
        payload: { content: "x", confidence: confidence as number },
      });
      expect(draft?.confidence).toBe(defaultConfidenceByKind.implementation_note);
    },
  );

  it.each(["state_update", "state_snapshot", "run_event"])("never compiles %s", (type) => {
    expect(compileEpisode({ type, source: "a", payload: { content: "x" } })).toBeNull();
  });

  it("skips an episode with no text", () => {
    expect(compileEpisode({ type: "message", source: "a", payload: { other: 1 } })).toBeNull();
  });

  it("cuts the summary at 200 code points, never inside an emoji", () => {
    const content = "🚀".repeat(250);
    const draft = compileEpisode({ type: "message", source: "a", payload: { content } });
    expect(draft?.content).toBe(content);
    expect([...(draft?.summary ?? "")]).toHaveLength(200);
    expect(firstCodePoints("a🚀b", 2)).toBe("a🚀");
  });
});

describe("compileEpisode's odd payloads", () => {
  const compile = (payload: Record<string, unknown>) =>
    compileEpisode({ type: "architectural_decision", source: "a", payload: payload as never });

  it("takes a trimmed target, a numeric one, and skips a blank one for the key", () => {
    expect(compile({ content: "c", target: "  auth  " })?.target).toBe("auth");
    expect(compile({ content: "c", target: "   ", key: "k" })?.target).toBe("k");
    expect(compile({ content: "c", target: 42 })?.target).toBe("42");
  });

  it("keeps a confidence of exactly 0 or 1", () => {
    expect(compile({ content: "c", confidence: 0 })?.confidence).toBe(0);
    expect(compile({ content: "c", confidence: 1 })?.confidence).toBe(1);
  });

  it("puts target and escalationId in the metadata only when they are there", () => {
    for (const payload of [
      { content: "c" },
      { content: "c", escalationId: "" },
      { content: "c", escalationId: 7 },
    ]) {
      const metadata = compile(payload)?.metadata ?? {};
      expect(Object.keys(metadata).sort()).toEqual(["episodeType", "source"]);
    }
    expect(compile({ content: "c", target: "t", escalationId: "e#1" })?.metadata).toEqual({
      source: "a",
      episodeType: "architectural_decision",
      target: "t",
      escalationId: "e#1",
    });
  });

  it("cuts nothing from a summary that fits", () => {
    expect(firstCodePoints("short", 200)).toBe("short");
    expect(firstCodePoints("abc", 3)).toBe("abc");
    expect(firstCodePoints("abcd", 3)).toBe("abc");
  });
});

describe("readMemoryIdsOf", () => {
  it("reads provenance.read_memory_ids, keeping strings once, in order", () => {
    expect(readMemoryIdsOf({ read_memory_ids: ["m1", "m2", "m1", 3, "", "m3"] })).toEqual([
      "m1",
      "m2",
      "m3",
    ]);
  });

  it.each([[undefined], [{}], [{ read_memory_ids: "m1" }]])("gives no ids for %j", (provenance) => {
    expect(readMemoryIdsOf(provenance)).toEqual([]);
  });

  it("is carried into the draft from the episode's provenance", () => {
    const draft = compileEpisode({
      type: "decision",
      source: "planner-b",
      payload: { content: "Keep it", target: "legacy-cache" },
      provenance: { read_memory_ids: ["mem-a"] },
    });
    expect(draft?.readMemoryIds).toEqual(["mem-a"]);
    expect(draft?.source).toBe("planner-b");
  });
});

describe("supersedes", () => {
  const newer = { source: "planner-b", readMemoryIds: ["mem-read"], metadata: {} };
  const older = (
    id: string,
    source: string | undefined,
    escalationId?: string,
    authority: Authority = "agent",
  ) => ({
    id,
    source,
    escalationId,
    authority,
  });

  it("lets an agent restate its own decision", () => {
    expect(supersedes(newer, older("mem-own", "planner-b"))).toBe(true);
  });

  it("lets another agent overrule a memory it had read", () => {
    expect(supersedes(newer, older("mem-read", "planner-a"))).toBe(true);
  });

  it("never lets another agent overrule a memory it had not seen", () => {
    expect(supersedes(newer, older("mem-unseen", "planner-a"))).toBe(false);
    expect(supersedes(newer, older("mem-unseen", undefined))).toBe(false);
  });

  it("lets a resolution settle the escalation it names, and only that one", () => {
    const resolution = compileEpisode({
      type: "escalation_resolution",
      source: "planner",
      payload: {
        content: "Resolved modules/x",
        target: "modules/x",
        escalationId: "modules/x#0",
      },
    });
    if (resolution === null) throw new Error("no draft");
    expect(resolution.metadata.escalationId).toBe("modules/x#0");
    expect(supersedes(resolution, older("mem-esc", "coder", "modules/x#0"))).toBe(true);
    expect(supersedes(resolution, older("mem-esc-1", "coder", "modules/x#1"))).toBe(false);
  });

  describe("authority", () => {
    const agentNewer = (metadata: JsonObject = {}) => ({ ...newer, metadata });

    it("never lets a lower class overrule a higher one, informed or the same author", () => {
      expect(supersedes(agentNewer(), older("mem-read", "person", undefined, "user"))).toBe(false);
      expect(supersedes(agentNewer(), older("mem-own", "planner-b", undefined, "verified"))).toBe(
        false,
      );
      expect(
        supersedes(
          agentNewer({ authority: "speculative" }),
          older("mem-read", "planner-a", undefined, "agent"),
        ),
      ).toBe(false);
    });

    it("lets an equal or higher class overrule what its writer knew", () => {
      const person = agentNewer({ authority: "user" });
      expect(supersedes(person, older("mem-read", "planner-a", undefined, "user"))).toBe(true);
      expect(supersedes(person, older("mem-read", "planner-a", undefined, "agent"))).toBe(true);
      // Authority is no licence to overrule unseen: that is still a contradiction.
      expect(supersedes(person, older("mem-unseen", "planner-a", undefined, "agent"))).toBe(false);
    });

    it("is read from a stored memory's metadata, `agent` when it names none or a non-class", () => {
      expect(supersedeCandidateOf("m", { source: "a", authority: "user" })).toEqual({
        id: "m",
        source: "a",
        escalationId: undefined,
        authority: "user",
      });
      expect(supersedeCandidateOf("m", { authority: "boss" }).authority).toBe("agent");
      expect(supersedeCandidateOf("m", { source: 3 }).source).toBeUndefined();
    });

    it("travels from the episode's metadata into the draft, only when it names a class", () => {
      const episode = (metadata: JsonObject) =>
        compileEpisode({
          type: "decision",
          source: "alice",
          payload: { content: "Keep sessions", target: "auth" },
          metadata,
        });
      expect(episode({ authority: "user" })?.metadata.authority).toBe("user");
      expect(episode({ authority: "boss" })?.metadata).not.toHaveProperty("authority");
      expect(episode({})?.metadata).not.toHaveProperty("authority");
    });
  });
});

describe("supersedes, by id (provenance.supersedes_memory_ids)", () => {
  const draft = compileEpisode({
    type: "architectural_decision",
    source: "lead",
    payload: { content: "Use NATS", target: "queue", retracts: "mem-named" },
    provenance: { read_memory_ids: ["mem-read"], supersedes_memory_ids: ["mem-named", 7, ""] },
  });

  it("compiles the named ids (strings only) and the retraction mark", () => {
    expect(draft?.supersedesMemoryIds).toEqual(["mem-named"]);
    expect(draft?.metadata.retracts).toBe("mem-named");
  });

  it("replaces exactly the named memory: not one it read, nor its own writer's", () => {
    if (draft === null) throw new Error("no draft");
    const older = (id: string, source: string) => ({
      id,
      source,
      escalationId: undefined,
      authority: "agent" as const,
    });
    expect(supersedes(draft, older("mem-named", "planner"))).toBe(true);
    expect(supersedes(draft, older("mem-read", "planner"))).toBe(false);
    expect(supersedes(draft, older("mem-own", "lead"))).toBe(false);
  });

  it("names none when the provenance names none", () => {
    const plain = compileEpisode({ type: "decision", source: "a", payload: { content: "x" } });
    expect(plain).not.toHaveProperty("supersedesMemoryIds");
  });
});
