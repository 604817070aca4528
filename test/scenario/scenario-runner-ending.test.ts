import { describe, expect, it } from "vitest";
import type { ReviewFinding } from "../../src/agents/brain.js";
import type { ContextStore } from "../../src/context/context-store.js";
import { createVirtualClock } from "../../src/scenario/clock.js";
import { loadScenario } from "../../src/scenario/load-scenario.js";
import { createPlaybackGroup } from "../../src/scenario/playback-group.js";
import { fromRunStopEpisode, type RunStop } from "../../src/scenario/run-record.js";
import type { ScenarioEvent } from "../../src/scenario/scenario-events.js";
import { startRun } from "../../src/scenario/scenario-runner.js";
import type { Scenario } from "../../src/scenario/scenario-schema.js";
import { deferred } from "../support/deferred.js";
import { runToEnd, sequentialIds } from "./support/run-scenario.js";
import { createRunnerFixtures, modelBrain } from "./support/runner-fixtures.js";

const { memoryStore, startAuthJwt } = createRunnerFixtures();

/** A store whose `createEpisode` fails from the `failFrom`-th call on (counting from 1). */
function storeFailingFrom(failFrom: number, error: Error): ContextStore {
  const inner = memoryStore();
  let calls = 0;
  return new Proxy(inner, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (property === "createEpisode") {
        return async (...args: Parameters<ContextStore["createEpisode"]>) => {
          calls += 1;
          if (calls >= failFrom) throw error;
          return target.createEpisode(...args);
        };
      }
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

/** The run's stop record, read back from the store. */
async function stopRecord(store: ContextStore, runId: string): Promise<RunStop[]> {
  const timeline = await store.getTimeline(runId, { limit: 1000 });
  return timeline.episodes.flatMap((episode) => {
    const stop = fromRunStopEpisode(episode);
    return stop ? [stop] : [];
  });
}

/**
 * A naive auth-jwt run on `store` that the test may abort through `controller`, once
 * `firstModuleStart` gives the time its first module started.
 */
async function startAbortable(store: ContextStore) {
  const controller = new AbortController();
  const started = deferred<number>();
  const handle = await startAuthJwt({
    mode: "naive",
    store,
    clock: createVirtualClock({ start: 5000 }),
    signal: controller.signal,
  });
  handle.subscribe((event) => {
    if (event.type === "module-start") started.resolve(event.at);
  });
  return { handle, controller, firstModuleStart: started.promise };
}

describe("startRun", () => {
  describe("the review", () => {
    it("waits for a Planner that decides after the Coders are done", async () => {
      const shipped = await loadScenario("auth-jwt");
      const scenario: Scenario = {
        ...shipped,
        agents: shipped.agents.map((agent) =>
          agent.role === "planner" ? { ...agent, startAtMs: 600_000 } : agent,
        ),
      };
      const { events, summary } = await runToEnd(scenario, "naive", { store: memoryStore() });
      const lastBuild = events.findLastIndex((event) => event.type === "module-end");
      const decision = events.findIndex((event) => event.type === "decision-write");
      const review = events.findIndex(
        (event) => event.type === "agent-log" && event.text === "Reviewing the finished work…",
      );
      expect(lastBuild).toBeGreaterThan(-1);
      expect(decision).toBeGreaterThan(lastBuild);
      expect(review).toBeGreaterThan(decision);
      expect(summary.collision).toBe(true);
    });

    it("blames the atomic claim unless the finding's first agent deprecated that very module", async () => {
      const real = { now: 0 };
      const finding = (module: string, agents: string[]): ReviewFinding => ({
        module,
        agents,
        description: `${agents.join(" and ")} on ${module}`,
        wasted: [],
      });
      const brain = modelBrain({
        real,
        reproducible: true,
        findings: [
          // Planner B decided legacy-cache too, but to keep it (Planner A deprecated it).
          finding("legacy-cache", ["planner-b", "coder"]),
          // Planner A deprecated legacy-cache, not session-store.
          finding("session-store", ["planner-a", "coder"]),
          finding("legacy-cache", ["coder", "planner-a"]),
          finding("legacy-cache", ["planner-a", "coder"]),
        ],
      });
      const { events } = await runToEnd(await loadScenario("disagreeing-planners"), "naive", {
        store: memoryStore(),
        brain,
        realNow: () => real.now,
      });
      const causes = events.flatMap((event) =>
        event.type === "collision" ? [`${event.module} ${event.agents[0]}: ${event.cause}`] : [],
      );
      expect(causes.slice(-4)).toEqual([
        "legacy-cache planner-b: atomic claim",
        "session-store planner-a: atomic claim",
        "legacy-cache coder: atomic claim",
        expect.not.stringMatching(/atomic claim$/),
      ]);
    });
  });

  describe("a store that fails", () => {
    it("fails the run before any agent works when the run's start cannot be kept", async () => {
      const handle = await startAuthJwt({
        mode: "naive",
        store: storeFailingFrom(1, new Error("disk full")),
      });
      const events: ScenarioEvent[] = [];
      handle.subscribe((event) => events.push(event));
      await expect(handle.done).rejects.toThrow("disk full");
      expect(events.map((event) => event.type)).toEqual(["run-start"]);
    });

    it("fails the run when a later event cannot be kept", async () => {
      const handle = await startAuthJwt({
        mode: "naive",
        store: storeFailingFrom(5, new Error("disk full")),
      });
      await expect(handle.done).rejects.toThrow("disk full");
    });
  });

  describe("the stop record", () => {
    it("records a failed run with the error, at the time it failed", async () => {
      const store = memoryStore();
      const real = { now: 0 };
      const handle = await startAuthJwt({
        mode: "naive",
        store,
        brain: modelBrain({ real, fail: new Error("cannot reach the model server") }),
        realNow: () => real.now,
        clock: createVirtualClock({ start: 5000 }),
      });
      const events: ScenarioEvent[] = [];
      handle.subscribe((event) => events.push(event));
      await expect(handle.done).rejects.toThrow("cannot reach the model server");
      const lastAt = events.at(-1)?.at;
      expect(lastAt).toBeGreaterThan(0);
      expect(await stopRecord(store, handle.runId)).toEqual([
        {
          runId: handle.runId,
          state: "failed",
          reason: "cannot reach the model server",
          at: lastAt,
        },
      ]);
    });

    it.each([
      ["an error", new Error("stopped by the user"), "stopped by the user"],
      ["a word", "SIGINT", "SIGINT"],
    ])("records an interrupted run with the signal's reason, %s", async (_label, reason, text) => {
      const store = memoryStore();
      const { handle, controller, firstModuleStart } = await startAbortable(store);
      const at = await firstModuleStart;
      controller.abort(reason);
      await expect(handle.done).rejects.toBeDefined();
      expect(await stopRecord(store, handle.runId)).toEqual([
        { runId: handle.runId, state: "interrupted", reason: text, at },
      ]);
    });
  });

  it("says nothing of a review when the run was stopped before the work was done", async () => {
    const { handle, controller, firstModuleStart } = await startAbortable(memoryStore());
    const logs: string[] = [];
    handle.subscribe((event) => {
      if (event.type === "agent-log") logs.push(event.text);
    });
    await firstModuleStart;
    controller.abort("SIGINT");
    await expect(handle.done).rejects.toBeDefined();
    expect(logs).not.toContain("Reviewing the finished work…");
  });

  describe("the end of a run", () => {
    it("closes every watch the run opened on the store", async () => {
      const inner = memoryStore();
      const watches: Array<{ closed: boolean }> = [];
      const store = new Proxy(inner, {
        get(target, property, receiver) {
          if (property === "watch") {
            return (...args: Parameters<ContextStore["watch"]>) => {
              const subscription = target.watch(...args);
              const watch = { closed: false };
              watches.push(watch);
              return {
                ...subscription,
                close: () => {
                  watch.closed = true;
                  subscription.close();
                },
              };
            };
          }
          const value = Reflect.get(target, property, receiver);
          return typeof value === "function" ? value.bind(target) : value;
        },
      });
      await runToEnd(await loadScenario("late-decision"), "statewave", { store });
      expect(watches.length).toBeGreaterThan(0);
      expect(watches.filter((watch) => !watch.closed)).toEqual([]);
    });

    it("no longer holds back the other runs of its playback group once it is over", async () => {
      const group = createPlaybackGroup();
      // A run shown beside it that has not moved: this run may not play past 0 until it does.
      const other = group.join();
      const controller = new AbortController();
      const handle = startRun({
        scenario: await loadScenario("auth-jwt"),
        mode: "naive",
        store: memoryStore(),
        speed: 1,
        playback: group,
        seed: 1,
        generateId: sequentialIds(),
        signal: controller.signal,
      });
      const waiting = deferred();
      handle.subscribe((event) => {
        if (event.type === "agent-start") waiting.resolve();
      });
      await waiting.promise;
      controller.abort(new Error("the demo moved on"));
      await expect(handle.done).rejects.toThrow("the demo moved on");
      expect(other.mayJumpTo(1_000_000)).toBe(true);
    });
  });

  describe("a large team", () => {
    it("warns of no listener leak on the run's signal", async () => {
      const warnings: string[] = [];
      const onWarning = (warning: Error) => warnings.push(warning.name);
      process.on("warning", onWarning);
      try {
        const scenario = await loadScenario("many-agents");
        expect(scenario.agents.length * 4).toBeGreaterThan(10);
        await runToEnd(scenario, "naive", { store: memoryStore() });
        await new Promise((resolve) => setImmediate(resolve));
      } finally {
        process.off("warning", onWarning);
      }
      expect(warnings).not.toContain("MaxListenersExceededWarning");
    });
  });
});
