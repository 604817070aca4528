import { afterEach, describe, expect, it, vi } from "vitest";
import type { Brain, ReviewFinding } from "../../src/agents/brain.js";
import { createOfflineBrain } from "../../src/agents/offline-brain.js";
import type { ContextStore } from "../../src/context/context-store.js";
import { EmbeddedStore } from "../../src/context/embedded/embedded-store.js";
import { createVirtualClock } from "../../src/scenario/clock.js";
import { loadScenario } from "../../src/scenario/load-scenario.js";
import { createPlaybackGroup } from "../../src/scenario/playback-group.js";
import { fromRunStopEpisode, type RunStop } from "../../src/scenario/run-record.js";
import type { ScenarioEvent } from "../../src/scenario/scenario-events.js";
import {
  type RunHandle,
  type StartRunOptions,
  startRun,
} from "../../src/scenario/scenario-runner.js";
import type { Scenario } from "../../src/scenario/scenario-schema.js";
import { deferred } from "../support/deferred.js";
import { runToEnd, sequentialIds } from "./support/run-scenario.js";

const stores: EmbeddedStore[] = [];
afterEach(async () => {
  vi.restoreAllMocks();
  for (const store of stores.splice(0)) await store.close();
});
function memoryStore(): EmbeddedStore {
  const store = new EmbeddedStore({ path: ":memory:" });
  stores.push(store);
  return store;
}

/** A store whose `createEpisode` fails from the `failFrom`-th call on (counting from 1). */
/** A run of the auth-jwt scenario on a fresh in-memory store, a virtual clock, seed 1 and
 * sequential ids, unless `options` says otherwise. */
async function startAuthJwt(
  options: Partial<StartRunOptions> & Pick<StartRunOptions, "mode">,
): Promise<RunHandle> {
  return startRun({
    scenario: await loadScenario("auth-jwt"),
    seed: 1,
    generateId: sequentialIds(),
    ...options,
    store: options.store ?? memoryStore(),
    clock: options.clock ?? createVirtualClock(),
  });
}

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

/**
 * The offline brain's answers from a stand-in for a model: each call reports `tokens` (as a
 * model's usage) and moves the fake real clock by `latencyMs` (as a model's answer takes time).
 */
function modelBrain(options: {
  real: { now: number };
  latencyMs?: number;
  tokens?: number;
  reproducible?: boolean;
  fail?: Error;
  /** Findings the model adds to the review. */
  findings?: ReviewFinding[];
}): Brain & { calls(): number } {
  const offline = createOfflineBrain();
  let calls = 0;
  const answer = async <T>(work: () => Promise<T>, onUsage?: (tokens: number) => void) => {
    calls += 1;
    // The answer comes later, as a model's does: the real time passes while the agent waits.
    await new Promise((resolve) => setImmediate(resolve));
    options.real.now += options.latencyMs ?? 0;
    if (options.tokens !== undefined) onUsage?.(options.tokens);
    return work();
  };
  return {
    name: "stand-in/model",
    ...(options.reproducible !== undefined ? { reproducible: options.reproducible } : {}),
    decide: (input, call) => answer(() => offline.decide(input, call), call?.onUsage),
    planModules: (input, call) => answer(() => offline.planModules(input, call), call?.onUsage),
    chooseModuleStep: (input, call) => {
      if (options.fail) return Promise.reject(options.fail);
      return answer(() => offline.chooseModuleStep(input, call), call?.onUsage);
    },
    review: (input, call) =>
      answer(async () => {
        const report = await offline.review(input, call);
        return { ...report, findings: [...report.findings, ...(options.findings ?? [])] };
      }, call?.onUsage),
    calls: () => calls,
  };
}

/** The run's stop record, read back from the store. */
async function stopRecord(store: ContextStore, runId: string): Promise<RunStop[]> {
  const timeline = await store.getTimeline(runId, { limit: 1000 });
  return timeline.episodes.flatMap((episode) => {
    const stop = fromRunStopEpisode(episode);
    return stop ? [stop] : [];
  });
}

/** Events without the ids a store generates at random. */
function comparable(events: readonly ScenarioEvent[]): unknown[] {
  return events.map((event) => {
    if (event.type === "context-read") return { ...event, memoryIds: event.memoryIds.length };
    if (event.type === "escalation" || event.type === "escalation-resolve") {
      return { ...event, escalationId: "-" };
    }
    return event;
  });
}

function eventsOf(type: string, events: readonly ScenarioEvent[]): ScenarioEvent[] {
  return events.filter((event) => event.type === type);
}

function buildTokens(events: readonly ScenarioEvent[]): number {
  return events.reduce(
    (sum, event) =>
      sum +
      (event.type === "module-end" ? event.tokens : 0) +
      (event.type === "module-cancel" ? event.tokensSpent : 0),
    0,
  );
}

describe("startRun", () => {
  describe("options.generateId", () => {
    it("takes 8 letters or digits in either case, as the run id's lower-case suffix", async () => {
      const handle = await startAuthJwt({ mode: "broadcast", generateId: () => "AbCd0123" });
      expect(handle.runId).toBe("bc-abcd0123");
      await handle.done;
    });

    it.each(["abc", "abcdefghi", "x-abcdefgh", "abcd-123"])("refuses %j, naming it", async (id) => {
      const scenario = await loadScenario("auth-jwt");
      expect(() =>
        startRun({ scenario, mode: "naive", store: memoryStore(), generateId: () => id }),
      ).toThrow(new RangeError(`generateId must return 8 characters [0-9a-z] (got "${id}")`));
    });

    it("draws 8 hexadecimal characters by default", async () => {
      const handle = startRun({
        scenario: await loadScenario("auth-jwt"),
        mode: "statewave",
        store: memoryStore(),
        clock: createVirtualClock(),
        seed: 1,
      });
      expect(handle.runId).toMatch(/^sw-[0-9a-f]{8}$/);
      await handle.done;
    });
  });

  describe("options.seed", () => {
    it("draws the seed from Math.random when none is given", async () => {
      const scenario = await loadScenario("late-decision");
      vi.spyOn(Math, "random").mockReturnValue(0.5);
      const drawn = await runToEnd(scenario, "naive", { store: memoryStore(), seed: undefined });
      const given = await runToEnd(scenario, "naive", { store: memoryStore(), seed: 2 ** 30 });
      const other = await runToEnd(scenario, "naive", { store: memoryStore(), seed: 0 });
      expect(drawn.events).toEqual(given.events);
      expect(given.events).not.toEqual(other.events);
    });
  });

  describe("timings.jitterMs", () => {
    it("adds nothing with no jitter: every build takes moduleMs exactly", async () => {
      const shipped = await loadScenario("auth-jwt");
      const scenario: Scenario = { ...shipped, timings: { ...shipped.timings, jitterMs: 0 } };
      const { events } = await runToEnd(scenario, "naive", { store: memoryStore() });
      const ends = events.flatMap((event) => (event.type === "module-end" ? [event.ms] : []));
      expect(ends.length).toBeGreaterThan(0);
      expect(ends.every((ms) => ms === scenario.timings.moduleMs)).toBe(true);
    });

    it("gives each agent its own jitter: two Coders with the same work build at different paces", async () => {
      const shipped = await loadScenario("auth-jwt");
      const coder = shipped.agents.find((agent) => agent.role === "coder");
      if (coder === undefined) throw new Error("auth-jwt has a Coder");
      const scenario: Scenario = {
        ...shipped,
        agents: [...shipped.agents, { ...coder, id: "coder-2", name: "Coder 2" }],
      };
      const { events } = await runToEnd(scenario, "naive", { store: memoryStore() });
      const pace = (agentId: string) =>
        events.flatMap((event) =>
          event.type === "module-end" && event.agentId === agentId ? [event.ms] : [],
        );
      expect(pace("coder-2")).toHaveLength(pace(coder.id).length);
      expect(pace("coder-2")).not.toEqual(pace(coder.id));
    });
  });

  describe("the scenario clock", () => {
    it.each(["naive", "statewave"] as const)(
      "%s: times events from the run's start, whatever the clock reads then",
      async (mode) => {
        const scenario = await loadScenario("late-joiner");
        const fromZero = await runToEnd(scenario, mode, { store: memoryStore() });
        const later = await runToEnd(scenario, mode, {
          store: memoryStore(),
          clock: createVirtualClock({ start: 5000 }),
        });
        expect(comparable(later.events)).toEqual(comparable(fromZero.events));
        expect(later.summary.totals.ms).toBe(later.events.at(-1)?.at);
      },
    );
  });

  describe("subscribe", () => {
    it("stops calling a listener once it unsubscribes", async () => {
      const handle = await startAuthJwt({ mode: "naive" });
      const seen: string[] = [];
      const unsubscribe = handle.subscribe((event) => seen.push(event.type));
      // The run has started: the listener was given the events so far, and no more after this.
      expect(seen).toEqual(["run-start"]);
      unsubscribe();
      const all: string[] = [];
      handle.subscribe((event) => all.push(event.type));
      await handle.done;
      expect(seen).toEqual(["run-start"]);
      expect(all.length).toBeGreaterThan(1);
    });
  });

  describe("handle.realTime", () => {
    it("reports real time since the start and the part spent on the store", async () => {
      const real = { now: 1000 };
      const readings: number[] = [];
      // Each reading moves real time on by 3 ms: a store call takes the time between two readings.
      const realNow = () => {
        real.now += 3;
        readings.push(real.now);
        return real.now;
      };
      const handle = await startAuthJwt({ mode: "statewave", realNow });
      await handle.done;
      const start = readings[0] ?? 0;
      const { ms, storeMs } = handle.realTime();
      expect(ms).toBe((readings.at(-1) ?? 0) - start);
      // Every store call is timed by two readings, 3 ms apart; the run's other readings are not.
      expect(storeMs).toBeGreaterThan(0);
      expect(storeMs % 3).toBe(0);
      expect(storeMs).toBeLessThan(ms);
    });
  });

  describe("thinking tokens", () => {
    it("counts the scenario's tokens per think step with the offline brain", async () => {
      const shipped = await loadScenario("late-decision");
      const dearer: Scenario = {
        ...shipped,
        costs: { ...shipped.costs, tokensPerThink: shipped.costs.tokensPerThink + 1 },
      };
      const base = await runToEnd(shipped, "statewave", { store: memoryStore() });
      const more = await runToEnd(dearer, "statewave", { store: memoryStore() });
      expect(base.summary.reproducible).toBe(true);
      const thinkSteps = more.summary.totals.tokens - base.summary.totals.tokens;
      // One token more per think step: as many as the agents took (at least one each).
      expect(thinkSteps).toBeGreaterThanOrEqual(shipped.agents.length);
      expect(buildTokens(more.events)).toBe(buildTokens(base.events));
    });

    it.each([
      ["says nothing of reproducibility", undefined],
      ["says it is not reproducible", false],
    ] as const)("counts what a model reports when it %s", async (_label, reproducible) => {
      const real = { now: 0 };
      const brain = modelBrain({
        real,
        tokens: 100,
        ...(reproducible !== undefined ? { reproducible } : {}),
      });
      const { summary, events } = await runToEnd(await loadScenario("late-decision"), "statewave", {
        store: memoryStore(),
        brain,
        realNow: () => real.now,
      });
      expect(summary.reproducible).toBe(false);
      expect(eventsOf("module-cancel", events)).not.toHaveLength(0);
      expect(summary.totals.tokens).toBe(buildTokens(events) + 100 * brain.calls());
    });
  });

  describe("a model's latency", () => {
    it("is the time the agent thought, in scenario time", async () => {
      const scenario = await loadScenario("auth-jwt");
      const firstDecision = async (latencyMs: number) => {
        const real = { now: 0 };
        const { events } = await runToEnd(scenario, "naive", {
          store: memoryStore(),
          brain: modelBrain({ real, latencyMs }),
          realNow: () => real.now,
        });
        return eventsOf("decision-write", events)[0]?.at ?? Number.NaN;
      };
      const instant = await firstDecision(0);
      // The Planner asks once before its first decision.
      expect(await firstDecision(250)).toBe(instant + 250);
    });

    it("takes no scenario time with a reproducible brain", async () => {
      const scenario = await loadScenario("auth-jwt");
      const eventsWith = async (latencyMs: number) => {
        const real = { now: 0 };
        const { events } = await runToEnd(scenario, "naive", {
          store: memoryStore(),
          brain: modelBrain({ real, latencyMs, reproducible: true }),
          realNow: () => real.now,
        });
        return events;
      };
      expect(await eventsWith(250)).toEqual(await eventsWith(0));
    });
  });

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
      const at = await started.promise;
      controller.abort(reason);
      await expect(handle.done).rejects.toBeDefined();
      expect(await stopRecord(store, handle.runId)).toEqual([
        { runId: handle.runId, state: "interrupted", reason: text, at },
      ]);
    });
  });

  describe("options.playback", () => {
    it("plays alone when given its own clock", async () => {
      const group = createPlaybackGroup();
      const other = group.join();
      other.idle(0, 10);
      const handle = await startAuthJwt({ mode: "naive", playback: group });
      const mayJump: boolean[] = [];
      handle.subscribe(() => mayJump.push(other.mayJumpTo(1_000_000)));
      await handle.done;
      expect(mayJump.length).toBeGreaterThan(1);
      expect(mayJump.every(Boolean)).toBe(true);
    });
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
