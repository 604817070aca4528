import { describe, expect, it } from "vitest";
import { loadScenario } from "../../../src/scenario/load-scenario.js";
import { runToEnd } from "../support/run-scenario.js";

/**
 * Topic routing (group-chat, a filter before delivery): a named mechanism that changes what the
 * chat costs under the one rule and never what happens. Switched off, every member receives
 * every message again.
 */
describe("group-chat: topic routing", () => {
  it.each(["late-decision", "late-joiner", "two-coders", "crash-restart", "many-agents"])(
    "%s: the same outcome with it on or off; fewer tokens and messages delivered with it on",
    async (name) => {
      const scenario = await loadScenario(name);
      const on = await runToEnd(scenario, "group-chat");
      const off = await runToEnd(scenario, "group-chat", {
        ablation: { off: ["topic routing"] },
      });
      expect(on.summary.referee?.verdict).toBe(off.summary.referee?.verdict);
      expect(on.summary.referee?.modules).toEqual(off.summary.referee?.modules);
      expect(on.summary.cost?.deliveredTokens).toBeLessThan(off.summary.cost?.deliveredTokens ?? 0);
      expect(on.summary.cost?.messagesDelivered).toBeLessThan(
        off.summary.cost?.messagesDelivered ?? 0,
      );
    },
  );

  it("a Coder receives only the channels of its modules; the Reviewer everything", async () => {
    const { events } = await runToEnd(await loadScenario("two-coders"), "group-chat");
    const heard = (agentId: string) =>
      events.filter((event) => event.type === "message-send" && event.to === agentId).length;
    // Coder 2 never works on query-parser: Coder 1's result on it never reaches Coder 2.
    expect(
      events.some(
        (event) =>
          event.type === "message-send" &&
          event.to === "coder-2" &&
          event.content.includes("Built query-parser"),
      ),
    ).toBe(false);
    expect(heard("reviewer")).toBeGreaterThan(heard("coder-2"));
  });
});
