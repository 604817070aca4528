import { describe, expect, it } from "vitest";
import type { UnstampedEvent } from "../../../../src/agents/agent-runtime.js";
import type { Memory } from "../../../../src/context/context-store.js";
import type { ContextRead, SharedContext } from "../../../../src/context/shared-context.js";
import type { Escalation } from "../../../../src/crdt/escalation.js";
import type { SharedState } from "../../../../src/crdt/shared-state.js";
import { DecisionIndex } from "../../../../src/scenario/pipelines/statewave/decision-index.js";
import { readContext } from "../../../../src/scenario/pipelines/statewave/read-context.js";
import type { Mechanism } from "../../../../src/scenario/scenario-events.js";
import { contextRead, memory } from "./fakes.js";

/** A shared state that holds only the modules register (any other namespace is empty). */
function stateWith(modules: Record<string, unknown>): SharedState {
  const fake = {
    list: (namespace: string) => (namespace === "modules" ? modules : {}),
  };
  return fake as unknown as SharedState;
}

async function read(
  raw: ContextRead,
  parts: {
    index?: DecisionIndex;
    modules?: Record<string, unknown>;
    off?: Mechanism[];
    joinedAt?: number;
    /** The store's answer to the exact read of the task's modules' decisions. */
    byTarget?: Memory[];
  } = {},
) {
  const events: UnstampedEvent[] = [];
  const announced: Escalation[] = [];
  const budgets: number[] = [];
  const context = {
    beforeActing: async (_agentId: string, _task: string, options: { maxTokens: number }) => {
      budgets.push(options.maxTokens);
      return raw;
    },
  } as unknown as SharedContext;
  const result = await readContext("coder", "Build module auth", {
    context,
    // No decision found by target unless given: what the read returns is the context's alone.
    store: { listMemories: async () => ({ memories: parts.byTarget ?? [], nextCursor: null }) },
    subjectId: "sw-00000000",
    state: stateWith(parts.modules ?? {}),
    index: parts.index ?? new DecisionIndex(),
    ablation: { off: parts.off ?? [] },
    joinedAt: parts.joinedAt ?? 100,
    budgetTokens: 800,
    emit: (event) => events.push(event),
    announce: (escalation) => announced.push(escalation),
  });
  return { ...result, events, announced, budgets };
}

function escalation(key: string, contenders: Array<[string, unknown]>): Escalation {
  const raised: Escalation = {
    id: `modules/${key}#1`,
    subjectId: "repo",
    namespace: "modules",
    key,
    reason: "concurrent-register",
    contenders: contenders.map(([agentId, value], at) => ({ agentId, value, at })),
    raisedAt: 0,
  };
  return raised;
}

describe("readContext", () => {
  describe("claims (read-before-act, on its own: no claim check involved)", () => {
    it("reads who claimed each module from the modules register", async () => {
      const { known } = await read(contextRead({}), {
        modules: { auth: "claimed-by:coder-2", billing: "free", cache: 3 },
      });
      expect(known.claims).toEqual({ auth: "coder-2" });
    });

    it("reads no claims when read-before-act is off", async () => {
      const { known } = await read(contextRead({}), {
        modules: { auth: "claimed-by:coder-2" },
        off: ["read-before-act"],
      });
      expect(known.claims).toEqual({});
    });
  });

  describe("decisions", () => {
    const index = new DecisionIndex();
    index.add("early", { target: "auth", value: "deprecate", by: "planner", content: "e", at: 50 });
    index.add("joining", { target: "auth", value: "keep", by: "planner", content: "j", at: 100 });
    index.add("undated", { target: "auth", value: "keep", by: "lead", content: "u" });
    const ranked = [memory("m1", ["early"]), memory("m2", ["joining"]), memory("m3", ["undated"])];
    const raw = contextRead({ facts: ranked, decisions: ranked });

    it("reach the agent through history (before it joined) and its own read (from then on)", async () => {
      const all = await read(raw, { index });
      expect(all.known.decisions.map((decision) => decision.content)).toEqual(["e", "j", "u"]);
      const noHistory = await read(raw, { index, off: ["history for a late joiner"] });
      expect(noHistory.known.decisions.map((decision) => decision.content)).toEqual(["j"]);
      const noRead = await read(raw, { index, off: ["read-before-act"] });
      expect(noRead.known.decisions.map((decision) => decision.content)).toEqual(["e", "u"]);
    });
  });

  describe("disputes", () => {
    const index = new DecisionIndex();
    index.add("p1", { target: "auth", value: "deprecate", by: "planner-1", content: "a" });
    index.add("p2", { target: "auth", value: "keep", by: "planner-2", content: "b" });

    it("merges a memory contradiction and an escalation on one target, each contender once", async () => {
      const raw = contextRead({
        contradictions: [
          {
            kind: "architectural_decision",
            target: "auth",
            memories: [memory("a", ["p1"]), memory("b", ["p2"])],
          },
        ],
        disputes: [
          escalation("auth", [
            ["planner-2", "keep"],
            ["coder", "claimed-by:coder"],
          ]),
        ],
      });
      const { known, announced } = await read(raw, { index });
      expect(known.disputes).toEqual([
        {
          target: "auth",
          contenders: [
            { agentId: "planner-1", value: "deprecate" },
            { agentId: "planner-2", value: "keep" },
            { agentId: "coder", value: "claimed-by:coder" },
          ],
        },
      ]);
      expect(announced.map((each) => each.key)).toEqual(["auth"]);
    });

    it("leaves out a contradiction with fewer than two decisions behind it", async () => {
      const raw = contextRead({
        contradictions: [
          {
            kind: "architectural_decision",
            target: "auth",
            memories: [memory("a", ["p1"]), memory("b", ["none"])],
          },
        ],
      });
      expect((await read(raw, { index })).known.disputes).toEqual([]);
    });

    it("shows no dispute when dispute surfaced is off (the escalation is still announced)", async () => {
      const raw = contextRead({
        disputes: [
          escalation("auth", [
            ["a", 1],
            ["b", 2],
          ]),
        ],
      });
      const { known, announced } = await read(raw, { index, off: ["dispute surfaced"] });
      expect(known.disputes).toEqual([]);
      expect(announced).toHaveLength(1);
    });
  });

  describe("what the agent had to read", () => {
    it("counts the text plus each decision on the task's module read by target, one line each", async () => {
      const inBundle = memory("in", [], "zzzzzzzzzzzzzzzzzzzzzzzz");
      const onModule = memory("out", ["on-auth"], "efghijkl");
      const index = new DecisionIndex();
      index.add("on-auth", { target: "auth", value: "deprecate", by: "planner", content: "d" });
      const raw = contextRead({
        facts: [inBundle],
        decisions: [inBundle, onModule],
        assembledContext: "abcd",
      });
      const { known, events } = await read(raw, { index, byTarget: [onModule] });
      // "abcd\nefghijkl": 13 characters, 4 tokens.
      expect(known.tokens).toBe(4);
      expect(known.decisions.map((decision) => decision.content)).toEqual(["d"]);
      expect(events).toEqual([
        expect.objectContaining({ type: "context-read", memoryIds: ["in", "out"], tokens: 4 }),
      ]);
    });

    it("gives the named decisions (in the text already, counted once) and leaves the rest out, counted", async () => {
      const index = new DecisionIndex();
      index.add("named", { target: "auth", value: "keep", by: "planner", content: "k" });
      index.add("other", { target: "billing", value: "deprecate", by: "planner", content: "o" });
      const named = memory("n", ["named"], "Keep auth");
      const other = memory("o", ["other"], "Deprecate billing");
      const raw = contextRead({
        decisions: [named, other],
        namedDecisions: [named],
        assembledContext: "abcd",
      });
      const { known, events } = await read(raw, { index });
      expect(known.decisions.map((decision) => decision.content)).toEqual(["k"]);
      expect(known.tokens).toBe(1);
      expect(events).toEqual([
        expect.objectContaining({ type: "context-read", memoryIds: ["n"], decisionsLeftOut: 1 }),
      ]);
    });

    it("asks for the budget when bounded, and the store's largest budget when not", async () => {
      expect((await read(contextRead({}))).budgets).toEqual([800]);
      expect((await read(contextRead({}), { off: ["bounded context"] })).budgets).toEqual([
        128_000,
      ]);
    });
  });
});
