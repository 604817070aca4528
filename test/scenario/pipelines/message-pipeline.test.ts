import { describe, expect, it } from "vitest";
import {
  createMessageCoordination,
  type MessagePolicy,
} from "../../../src/scenario/pipelines/message-pipeline.js";
import { deferred } from "../../support/deferred.js";
import { built, busFloor, decision } from "../support/coordination-steps.js";

function setup(policy: MessagePolicy) {
  const { bus, events, emit, now, at } = busFloor();
  const coordination = createMessageCoordination({
    policy,
    bus,
    emit,
    reviewerIds: ["reviewer"],
    now,
  });
  for (const agentId of ["planner", "coder", "reviewer"]) coordination.join(agentId);
  return { bus, events, coordination, at };
}

const deprecateAuth = { target: "auth", value: "deprecate", content: "Drop auth" } as const;

describe("createMessageCoordination", () => {
  describe("policy naive", () => {
    it("sends decisions and results to the reviewer only, and claims to nobody", async () => {
      const { bus, coordination, events } = setup("naive");
      await coordination.publishDecision("planner", deprecateAuth);
      await coordination.claim("coder", "auth");
      await coordination.reportResult("coder", built("coder", "auth", { tokens: 5, ms: 7 }));
      expect(bus.all().map((message) => [message.from, message.to, message.topic])).toEqual([
        ["planner", "reviewer", "decision"],
        ["coder", "reviewer", "result"],
      ]);
      expect(events.filter((event) => event.type === "message-send")).toHaveLength(2);
      expect((await coordination.read("coder", "Build auth")).decisions).toEqual([]);
    });
  });

  describe("policy broadcast", () => {
    it("sends everything to every other member, and a reader gets decisions, claims and what it read", async () => {
      const { bus, coordination, events, at } = setup("broadcast");
      at(12.4);
      await coordination.publishDecision("planner", deprecateAuth);
      await coordination.claim("reviewer", "auth");
      await coordination.claim("planner", "auth");
      expect(bus.inbox("coder").map((message) => message.topic)).toEqual([
        "decision",
        "claim",
        "claim",
      ]);
      expect(bus.inbox("planner").map((message) => message.from)).toEqual(["reviewer"]);
      const known = await coordination.read("coder", "Build auth");
      expect(known.decisions).toEqual([
        {
          id: "planner#1",
          target: "auth",
          value: "deprecate",
          by: "planner",
          content: "Drop auth",
          at: 12,
        },
      ]);
      // The first claim a reader hears of wins its view.
      expect(known.claims).toEqual({ auth: "reviewer" });
      expect(known.disputes).toEqual([]);
      const text = bus
        .inbox("coder")
        .map((message) => `${message.from}: ${message.content}`)
        .join("\n");
      expect(known.tokens).toBe(Math.ceil(text.length / 4));
      expect(events.at(-1)).toEqual({
        type: "context-read",
        agentId: "coder",
        task: "Build auth",
        memoryIds: [],
        decisions: ["planner: Drop auth"],
        decisionIds: ["planner#1"],
        disputes: [],
        tokens: known.tokens,
        source: "inbox",
      });
    });

    it("lets a decision overrule only what its author had read from others on its target", async () => {
      const { coordination } = setup("broadcast");
      await coordination.publishDecision("planner", deprecateAuth);
      await coordination.publishDecision(
        "reviewer",
        decision("auth", "deprecate", "Drop auth too"),
      );
      await coordination.publishDecision("planner", decision("billing", "keep", "Keep billing"));
      await coordination.read("coder", "Decide auth");
      await coordination.publishDecision("coder", decision("auth", "keep", "Keep auth"));
      // The planner had not read the coder's: its next decision on auth overrules nothing.
      await coordination.publishDecision(
        "planner",
        decision("auth", "deprecate", "Drop auth again"),
      );
      const review = await coordination.collectForReview("reviewer");
      expect(review.decisions.map((decision) => decision.content)).toEqual([
        "Keep billing",
        "Keep auth",
        "Drop auth again",
      ]);
    });

    it("lets an author's later decision overrule its own earlier one (the referee's rule)", async () => {
      // Under naive a Reviewer's own decisions come back to it: the only inbox holding one's own.
      // An author knows what it said itself, read or not: its later word on a target stands.
      const { coordination } = setup("naive");
      await coordination.publishDecision("reviewer", deprecateAuth);
      await coordination.read("reviewer", "Decide auth");
      await coordination.publishDecision("reviewer", decision("auth", "keep", "Keep auth"));
      const review = await coordination.collectForReview("reviewer");
      expect(review.decisions.map((decision) => decision.content)).toEqual(["Keep auth"]);
    });

    it("counts only decision messages as decisions, and only claim messages as claims", async () => {
      const { bus, coordination } = setup("broadcast");
      bus.send({
        from: "lead",
        to: "coder",
        topic: "assignment",
        content: "Do auth",
        data: { target: "auth", value: "build" },
      });
      await coordination.reportResult("planner", built("planner", "auth", { tokens: 1, ms: 1 }));
      const known = await coordination.read("coder", "Build auth");
      expect(known.decisions).toEqual([]);
      expect(known.claims).toEqual({});
    });

    it("lets the arbiter wait for the run's end, with nothing to arbitrate", async () => {
      const { coordination } = setup("broadcast");
      const end = deferred();
      let returned = false;
      const arbitrating = coordination
        .arbitrate("lead", () => undefined, end.promise)
        .then(() => {
          returned = true;
        });
      await new Promise((resolve) => setImmediate(resolve));
      expect(returned).toBe(false);
      end.resolve();
      await arbitrating;
      expect(returned).toBe(true);
    });

    it("leaves two decisions made without reading each other as an open disagreement", async () => {
      const { coordination } = setup("broadcast");
      await coordination.publishDecision("planner", deprecateAuth);
      await coordination.publishDecision("coder", decision("auth", "keep", "Keep auth"));
      await coordination.reportResult("coder", built("coder", "auth", { tokens: 5, ms: 7 }));
      const review = await coordination.collectForReview("reviewer");
      expect(review.disputes).toEqual([
        {
          target: "auth",
          contenders: [
            { agentId: "planner", value: "deprecate" },
            { agentId: "coder", value: "keep" },
          ],
        },
      ]);
      expect(review.results).toEqual([{ module: "auth", agentId: "coder", tokens: 5, ms: 7 }]);
    });

    it("reads a module named like an Object.prototype member as any other", async () => {
      const { coordination } = setup("broadcast");
      await coordination.claim("planner", "constructor");
      expect((await coordination.read("coder", "Build constructor")).claims).toEqual({
        constructor: "planner",
      });
    });

    it("grants every claim (messages cannot refuse one) and joins each member once", async () => {
      const { bus, coordination } = setup("broadcast");
      coordination.join("planner");
      expect(await coordination.claim("coder", "auth")).toEqual({ granted: true });
      expect(bus.all().map((message) => [message.to, message.content])).toEqual([
        ["planner", "Taking auth"],
        ["reviewer", "Taking auth"],
      ]);
    });
  });
});
