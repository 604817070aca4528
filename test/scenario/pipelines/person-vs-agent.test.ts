import { afterEach, describe, expect, it } from "vitest";
import { EmbeddedStore } from "../../../src/context/embedded/embedded-store.js";
import { loadScenario } from "../../../src/scenario/load-scenario.js";
import { buildSubjectView, formatSubjectView } from "../../../src/ui/format/subject-view.js";
import { runToEnd } from "../support/run-scenario.js";

const stores: EmbeddedStore[] = [];
afterEach(async () => {
  for (const store of stores.splice(0)) await store.close();
});

/** The demo scenario on the shared context: what the run leaves in the store and shows. */
describe("person-vs-agent on the shared context", () => {
  it("keeps the person's decision active against the agent's informed one (a dispute), and the Coder builds what the person kept", async () => {
    const store = new EmbeddedStore({ path: ":memory:" });
    stores.push(store);
    const { events, runId } = await runToEnd(await loadScenario("person-vs-agent"), "statewave", {
      store,
    });
    // The agent had read the person's decision before it wrote its own.
    const planner = events.findIndex(
      (event) => event.type === "decision-write" && event.agentId === "planner",
    );
    const readBefore = events
      .slice(0, planner)
      .some(
        (event) =>
          event.type === "context-read" &&
          event.agentId === "planner" &&
          (event.decisionIds ?? []).includes("alice#1"),
      );
    expect(readBefore).toBe(true);
    const active = await store.searchMemories(runId, {
      kind: "architectural_decision",
      limit: 100,
    });
    const onCache = active.filter((memory) => memory.metadata.target === "legacy-cache");
    expect(
      onCache.map((memory) => [memory.metadata.source, memory.metadata.authority]).sort(),
    ).toEqual([
      ["alice", "user"],
      ["planner", undefined],
    ]);
    expect(events).toContainEqual(
      expect.objectContaining({ type: "module-end", agentId: "coder", module: "legacy-cache" }),
    );
    const lines = formatSubjectView(
      buildSubjectView(await store.getTimeline(runId, { limit: 1000 })),
    );
    expect(lines.some((line) => line.includes("(user) says Keep legacy-cache"))).toBe(true);
  }, 30_000);
});

/** The strongest message passing honours authority said in its messages, as the store does. */
describe("person-vs-agent in group-chat", () => {
  it("carries the person's class in the message, so the agent's later word does not overrule it", async () => {
    const { events } = await runToEnd(await loadScenario("person-vs-agent"), "group-chat");
    expect(events).toContainEqual(
      expect.objectContaining({ type: "module-end", agentId: "coder", module: "legacy-cache" }),
    );
    expect(
      events.some(
        (event) =>
          event.type === "module-skip" &&
          event.agentId === "coder" &&
          event.module === "legacy-cache",
      ),
    ).toBe(false);
  }, 30_000);
});
