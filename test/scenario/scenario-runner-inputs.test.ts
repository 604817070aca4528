import { describe, expect, it, vi } from "vitest";
import { createVirtualClock } from "../../src/scenario/clock.js";
import { loadScenario } from "../../src/scenario/load-scenario.js";
import { createPlaybackGroup } from "../../src/scenario/playback-group.js";
import type { ScenarioEvent } from "../../src/scenario/scenario-events.js";
import { startRun } from "../../src/scenario/scenario-runner.js";
import type { Scenario } from "../../src/scenario/scenario-schema.js";
import { runToEnd } from "./support/run-scenario.js";
import { createRunnerFixtures, modelBrain } from "./support/runner-fixtures.js";

const { memoryStore, startAuthJwt } = createRunnerFixtures();

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
});
