import { describe, expect, it } from "vitest";
import type { Brain, BuildResult } from "../../../src/agents/brain.js";
import { createOfflineBrain } from "../../../src/agents/offline-brain.js";
import { SharedState } from "../../../src/crdt/shared-state.js";
import { createVirtualClock } from "../../../src/scenario/clock.js";
import { loadScenario } from "../../../src/scenario/load-scenario.js";
import {
  createStatewaveCoordination,
  projectNamespace,
} from "../../../src/scenario/pipelines/statewave-pipeline.js";
import { embeddedStoresPerTest } from "../../support/embedded-stores.js";
import { built } from "../support/coordination-steps.js";
import { runToEnd } from "../support/run-scenario.js";

const memoryStore = embeddedStoresPerTest();

/** The offline brain, keeping what the Reviewer was shown. */
function reviewRecorder(): Brain & { reviewed: BuildResult[][] } {
  const offline = createOfflineBrain();
  const reviewed: BuildResult[][] = [];
  return {
    ...offline,
    review: (input, options) => {
      reviewed.push([...input.results]);
      return offline.review(input, options);
    },
    reviewed,
  };
}

describe("the statewave pipeline", () => {
  describe("the review", () => {
    it("sees every build, past the store's first page of 100 episodes", async () => {
      const brain = reviewRecorder();
      const { events, store, runId } = await runToEnd(
        await loadScenario("many-agents"),
        "statewave",
        { store: memoryStore(), brain },
      );
      const timeline = await store.getTimeline(runId, { limit: 1000 });
      expect(timeline.episodes.length).toBeGreaterThan(200);
      const built = events.flatMap((event) =>
        event.type === "module-end" ? [`${event.agentId} ${event.module}`] : [],
      );
      expect(brain.reviewed).toHaveLength(1);
      expect(
        (brain.reviewed[0] ?? []).map((result) => `${result.agentId} ${result.module}`).sort(),
      ).toEqual(built.sort());
    }, 30_000);
  });

  describe("what the run keeps in the store", () => {
    it("records the inventory as in use and each decision with its value and time", async () => {
      const { events, store, runId } = await runToEnd(
        await loadScenario("disagreeing-planners"),
        "statewave",
        { store: memoryStore() },
      );
      const timeline = await store.getTimeline(runId, { limit: 1000 });
      const decisions = timeline.episodes
        .filter((episode) => episode.type === "architectural_decision")
        .map((episode) => ({
          source: episode.source,
          target: episode.payload.target,
          value: episode.payload.value,
          at: episode.payload.at,
        }));
      const written = events.flatMap((event) =>
        event.type === "decision-write"
          ? [{ source: event.agentId, target: event.target, value: event.value, at: event.at }]
          : [],
      );
      // Two Planners, then the lead's ruling on their dispute.
      expect(written).toHaveLength(3);
      expect(decisions).toEqual([
        { source: "project", target: "legacy-cache", value: "in-use", at: undefined },
        ...written,
      ]);
    });
  });

  describe("the project namespace", () => {
    it("keeps every Coder's note and tag (text appends, sets union), escalating neither", async () => {
      const { events, store, runId } = await runToEnd(
        await loadScenario("two-coders"),
        "statewave",
        {
          store: memoryStore(),
        },
      );
      const built = events.flatMap((event) =>
        event.type === "module-end" ? [{ agentId: event.agentId, module: event.module }] : [],
      );
      expect(new Set(built.map((build) => build.agentId)).size).toBe(2);
      const state = await SharedState.open({ store, subjectId: runId, agentId: "inspector" });
      try {
        const notes = String(state.get(projectNamespace, "notes"));
        for (const { agentId, module } of built)
          expect(notes).toContain(`${agentId} built ${module}`);
        expect(state.get(projectNamespace, "tags")).toEqual(
          expect.arrayContaining(built.map((build) => build.module)),
        );
        expect(
          events.filter(
            (event) => event.type === "escalation" && event.namespace === projectNamespace,
          ),
        ).toEqual([]);
      } finally {
        await state.close();
      }
    });
  });

  describe("a scenario without an inventory", () => {
    it("runs, writing no inventory episode (the store refuses an empty batch)", async () => {
      const scenario = { ...(await loadScenario("two-coders")), inventory: [] };
      const { summary, store, runId } = await runToEnd(scenario, "statewave", {
        store: memoryStore(),
      });
      expect(summary.escalations).toBe(1);
      const timeline = await store.getTimeline(runId, { limit: 1000 });
      expect(timeline.episodes.filter((episode) => episode.source === "project")).toEqual([]);
    });
  });

  describe("collectForReview", () => {
    it("counts build notes only, not other episodes that name a module", async () => {
      const store = memoryStore();
      const subjectId = "sw-00000001";
      const coordination = await createStatewaveCoordination({
        store,
        subjectId,
        scenario: await loadScenario("two-coders"),
        emit: () => undefined,
        clock: createVirtualClock(),
        now: () => 0,
      });
      try {
        await store.createEpisode({
          subjectId,
          source: "someone",
          type: "conversation",
          payload: { module: "query-api", tokens: 1, ms: 1 },
        });
        await coordination.reportResult(
          "coder-1",
          built("coder-1", "search-index", { tokens: 7, ms: 9 }),
        );
        const review = await coordination.collectForReview("reviewer");
        expect(review.results).toEqual([
          { module: "search-index", agentId: "coder-1", tokens: 7, ms: 9 },
        ]);
      } finally {
        await coordination.close();
      }
    });
  });

  describe("escalations", () => {
    it("announces each escalation once, however many replicas see it", async () => {
      const { events, summary } = await runToEnd(await loadScenario("two-coders"), "statewave", {
        store: memoryStore(),
      });
      const announced = events.filter((event) => event.type === "escalation");
      expect(announced).toHaveLength(1);
      expect(summary.escalations).toBe(1);
    });

    it.each([1, 7, 42])(
      "has the lead settle one within a quarter of a think step, when it next looks (seed %i)",
      async (seed) => {
        const scenario = await loadScenario("two-coders");
        const { events } = await runToEnd(scenario, "statewave", { store: memoryStore(), seed });
        const raised = events.find((event) => event.type === "escalation");
        const settled = events.find((event) => event.type === "escalation-resolve");
        expect(raised).toBeDefined();
        expect(settled).toBeDefined();
        const waited = (settled?.at ?? Number.NaN) - (raised?.at ?? Number.NaN);
        expect(waited).toBeGreaterThanOrEqual(0);
        expect(waited).toBeLessThanOrEqual(scenario.timings.thinkMs / 4);
      },
    );
  });

  describe("agents", () => {
    it("refuses an agent the scenario does not have, naming it and the scenario", async () => {
      const scenario = await loadScenario("auth-jwt");
      const coordination = await createStatewaveCoordination({
        store: memoryStore(),
        subjectId: "sw-00000000",
        scenario,
        emit: () => undefined,
        clock: createVirtualClock(),
        now: () => 0,
      });
      try {
        await expect(coordination.read("ghost", "Build things")).rejects.toThrow(
          new RangeError('no agent "ghost" in auth-jwt'),
        );
      } finally {
        await coordination.close();
      }
    });
  });
});
