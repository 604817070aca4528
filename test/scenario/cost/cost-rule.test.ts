import { afterEach, describe, expect, it, vi } from "vitest";
import { MessageBus } from "../../../src/context/message-bus.js";
import { SharedContext } from "../../../src/context/shared-context.js";
import { loadScenario } from "../../../src/scenario/load-scenario.js";
import { estimateTokens } from "../../../src/scenario/pipelines/read-tokens.js";
import type { RunMode, ScenarioEvent } from "../../../src/scenario/scenario-events.js";
import { runToEnd } from "../support/run-scenario.js";

/**
 * The one cost rule (docs/runner.md, *Cost*): every delivery into an agent's context is charged,
 * in every mode. Each test counts the deliveries where they happen (the bus, the shared context's
 * reads) and holds the run's cost to them, on the scenarios where a replay, an interrupt or a
 * re-read happens.
 */

afterEach(() => {
  vi.restoreAllMocks();
});

/** Every message the bus delivered to someone other than its author, and its tokens. */
function watchBus() {
  const delivered = { messages: 0, tokens: 0 };
  const send = MessageBus.prototype.send;
  vi.spyOn(MessageBus.prototype, "send").mockImplementation(function (this: MessageBus, input) {
    if (input.from !== input.to) {
      delivered.messages += 1;
      delivered.tokens += estimateTokens(input.content);
    }
    return send.call(this, input);
  });
  return delivered;
}

const interruptTokens = (events: readonly ScenarioEvent[]) =>
  events.reduce(
    (sum, event) =>
      event.type === "context-read" && event.source === "interrupt"
        ? sum + (event.tokens ?? 0)
        : sum,
    0,
  );

const scenariosWithDeliveries = ["late-decision", "late-joiner", "crash-restart", "two-coders"];

describe("the one cost rule", () => {
  describe.each(["naive", "broadcast", "group-chat"] as const)("%s", (mode: RunMode) => {
    it.each(scenariosWithDeliveries)(
      "%s: every message delivered (a transcript replayed too) and every interrupt is charged",
      async (name) => {
        const delivered = watchBus();
        const { summary, events } = await runToEnd(await loadScenario(name), mode);
        expect(summary.cost?.messagesDelivered).toBe(delivered.messages);
        expect(summary.cost?.deliveredTokens).toBe(delivered.tokens + interruptTokens(events));
        expect(summary.cost?.storeRequests).toBe(0);
      },
    );
  });

  it("group-chat: a joiner's replayed transcript is charged to the joiner", async () => {
    const { summary, events } = await runToEnd(await loadScenario("late-joiner"), "group-chat");
    const sent = events.filter((event) => event.type === "message-send" && event.to === "coder-2");
    // More delivered than was sent to it live: the transcript it was replayed on joining.
    expect(summary.cost?.byAgent["coder-2"]?.messagesDelivered).toBeGreaterThan(sent.length);
  });

  it("group-chat: the listener's interrupt is charged to the interrupted Coder", async () => {
    const { summary, events } = await runToEnd(await loadScenario("late-decision"), "group-chat");
    const interrupt = events.find(
      (event) => event.type === "context-read" && event.source === "interrupt",
    );
    expect(interrupt?.type === "context-read" && interrupt.tokens).toBeGreaterThan(0);
    expect(interruptTokens(events)).toBeGreaterThan(0);
    expect(summary.cost?.deliveredTokens).toBeGreaterThan(interruptTokens(events));
  });

  it.each(scenariosWithDeliveries)(
    "statewave %s: every bundle the shared context handed over (re-reads too) is charged",
    async (name) => {
      const bundles = { reads: 0, tokens: 0 };
      const beforeActing = SharedContext.prototype.beforeActing;
      vi.spyOn(SharedContext.prototype, "beforeActing").mockImplementation(async function (
        this: SharedContext,
        ...args
      ) {
        const read = await beforeActing.apply(this, args);
        bundles.reads += 1;
        return read;
      });
      const { summary, events } = await runToEnd(await loadScenario(name), "statewave");
      const charged = events.filter(
        (event) => event.type === "context-read" && event.source !== "inbox",
      );
      // Every read the store answered is on the record as a charged delivery.
      expect(charged).toHaveLength(bundles.reads);
      const tokens = charged.reduce(
        (sum, event) => sum + (event.type === "context-read" ? (event.tokens ?? 0) : 0),
        0,
      );
      expect(summary.cost?.deliveredTokens).toBe(tokens);
      expect(summary.cost?.messagesDelivered).toBe(0);
      expect(summary.cost?.storeRequests).toBeGreaterThan(bundles.reads);
    },
  );

  it("statewave late-decision: the re-read that stops the build is charged", async () => {
    const { summary, events } = await runToEnd(await loadScenario("late-decision"), "statewave");
    const reread = events.filter(
      (event) => event.type === "context-read" && event.source === "re-read",
    );
    expect(reread.length).toBeGreaterThan(0);
    const coder = reread[0]?.type === "context-read" ? reread[0].agentId : "";
    const reads = events.filter(
      (event) => event.type === "context-read" && event.agentId === coder,
    );
    const tokens = reads.reduce(
      (sum, event) => sum + (event.type === "context-read" ? (event.tokens ?? 0) : 0),
      0,
    );
    expect(summary.cost?.byAgent[coder]?.deliveredTokens).toBe(tokens);
  });

  it.each(["naive", "broadcast", "group-chat", "statewave"] as const)(
    "%s: the total is the agents' sum (store requests: plus the run's setup)",
    async (mode) => {
      const { summary } = await runToEnd(await loadScenario("two-coders"), mode);
      const cost = summary.cost;
      const agents = Object.values(cost?.byAgent ?? {});
      const sum = (key: "deliveredTokens" | "messagesDelivered" | "storeRequests") =>
        agents.reduce((total, agent) => total + agent[key], 0);
      expect(cost?.deliveredTokens).toBe(sum("deliveredTokens"));
      expect(cost?.messagesDelivered).toBe(sum("messagesDelivered"));
      expect(cost?.storeRequests).toBeGreaterThanOrEqual(sum("storeRequests"));
    },
  );
});
