import { describe, expect, it } from "vitest";
import type { CreateEpisodeInput } from "../../src/context/context-store.js";
import { decision, sharedContextSetups, subjectId } from "./support/shared-context-setups.js";

const { setUp } = sharedContextSetups();

describe("SharedContext", () => {
  describe("decide", () => {
    it("publishes the content, target, confidence and payload it is given", async () => {
      const { shared } = setUp();
      const { episode, memories } = await shared.decide("planner", "Use RS256", {
        kind: "architectural_decision",
        target: "jwt-signing",
        confidence: 0.4,
        payload: { content: "overridden", ticket: "SEC-1" },
      });
      expect(episode).toMatchObject({
        subjectId,
        source: "planner",
        type: "architectural_decision",
        payload: { content: "Use RS256", target: "jwt-signing", confidence: 0.4, ticket: "SEC-1" },
        provenance: { read_memory_ids: [] },
      });
      expect(memories).toEqual([
        expect.objectContaining({ content: "Use RS256", confidence: 0.4, status: "active" }),
      ]);
      expect(memories[0]?.metadata).toMatchObject({ source: "planner", target: "jwt-signing" });
    });

    it("leaves target and confidence out of the payload when not given", async () => {
      const { store, shared } = setUp();
      const sent: CreateEpisodeInput[] = [];
      const createEpisode = store.createEpisode.bind(store);
      store.createEpisode = (input, options) => {
        sent.push(input);
        return createEpisode(input, options);
      };
      await shared.decide("coder", "Built the login form", { kind: "implementation_note" });
      // Not even as undefined keys: a store that keeps objects as they are would list them.
      expect(sent.map((input) => Object.keys(input.payload))).toEqual([["content"]]);
    });

    it("returns only the memories of its own episode", async () => {
      const { store, shared } = setUp();
      // Someone else's episode, not compiled yet: decide's compile picks it up too.
      await store.createEpisode({
        subjectId,
        source: "coder",
        type: "implementation_note",
        payload: { content: "Built the login form" },
      });
      const { memories } = await shared.decide("planner", "Use RS256", decision("jwt"));
      expect(memories.map((memory) => memory.content)).toEqual(["Use RS256"]);
    });

    it("lists a memory id once in provenance even when read and declared", async () => {
      const { shared } = setUp();
      const first = await shared.decide("project", "cache in use", decision("cache"));
      const id = first.memories[0]?.id ?? "";
      await shared.beforeActing("planner", "Decide the fate of cache");
      const { episode } = await shared.decide("planner", "Retire cache", {
        ...decision("cache"),
        readMemoryIds: [id],
      });
      expect(episode.provenance).toEqual({ read_memory_ids: [id] });
    });
  });
});
