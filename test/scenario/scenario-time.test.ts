import { describe, expect, it } from "vitest";
import type { ContextStore } from "../../src/context/context-store.js";
import type { EmbeddedStore } from "../../src/context/embedded/embedded-store.js";
import { createSeededRandom, createVirtualClock } from "../../src/scenario/clock.js";
import { loadScenario } from "../../src/scenario/load-scenario.js";
import type { RunMode, ScenarioEvent } from "../../src/scenario/scenario-events.js";
import { embeddedStoresPerTest } from "../support/embedded-stores.js";
import { runToEnd } from "./support/run-scenario.js";

const memoryStore = embeddedStoresPerTest();

/**
 * A store whose every call takes a random few real milliseconds, as a loaded machine or a remote
 * server does: the run's outcome and its scenario times must not notice.
 */
function slowStore(inner: EmbeddedStore, seed: number): ContextStore {
  const random = createSeededRandom(seed);
  const pause = () => new Promise((resolve) => setTimeout(resolve, Math.floor(random() * 8)));
  return new Proxy(inner, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (typeof value !== "function" || property === "watch" || property === "close") {
        return typeof value === "function" ? value.bind(target) : value;
      }
      return async (...args: unknown[]) => {
        await pause();
        return (value as (...inner: unknown[]) => unknown).apply(target, args);
      };
    },
  });
}

/** Events without what differs by design: run ids, and the ids a store generates at random. */
function comparable(events: readonly ScenarioEvent[]): unknown[] {
  return events.map(({ runId: _runId, ...event }) => {
    if (event.type === "context-read") return { ...event, memoryIds: event.memoryIds.length };
    if (event.type === "escalation" || event.type === "escalation-resolve") {
      return { ...event, escalationId: "-" };
    }
    if (event.type === "run-end") return { ...event, summary: { ...event.summary, runId: "-" } };
    return event;
  });
}

/** A pacing that takes no real time: a fake real clock that each wait moves forward. */
function instantPacing(speed: number) {
  let realNow = 0;
  return {
    speed,
    now: () => realNow,
    wait: async (ms: number) => {
      realNow += ms;
    },
  };
}

describe("scenario time", () => {
  describe.each([
    ["late-decision", "statewave"],
    ["two-coders", "statewave"],
    ["late-joiner", "broadcast"],
  ] as const)("%s, %s mode", (name, mode: RunMode) => {
    it("gives the same events at every speed, paced or not, and on a slow store", async () => {
      const scenario = await loadScenario(name);
      // Another run id (each run is its own subject): nothing in a run may depend on it.
      const reference = await runToEnd(scenario, mode, {
        seed: 7,
        store: memoryStore(),
        generateId: () => "zz9zz9zz",
      });
      const runs = [
        // --speed 1 and 10, paced against a fake real clock (no real waiting in the suite).
        await runToEnd(scenario, mode, {
          seed: 7,
          store: memoryStore(),
          clock: createVirtualClock({ pacing: instantPacing(1) }),
        }),
        await runToEnd(scenario, mode, {
          seed: 7,
          store: memoryStore(),
          clock: createVirtualClock({ pacing: instantPacing(10) }),
        }),
        // --speed 100 on the real clock: the run really plays in real time.
        await runToEnd(scenario, mode, {
          seed: 7,
          store: memoryStore(),
          clock: createVirtualClock({ pacing: { speed: 100 } }),
        }),
        await runToEnd(scenario, mode, {
          seed: 7,
          store: slowStore(memoryStore(), 3) as EmbeddedStore,
        }),
      ];
      for (const run of runs) {
        expect(comparable(run.events)).toEqual(comparable(reference.events));
        expect({ ...run.summary, runId: "-" }).toEqual({ ...reference.summary, runId: "-" });
      }
    }, 30_000);
  });

  it("paces playback: at --speed 100 a 15 s scenario takes about 150 ms of real time", async () => {
    const scenario = await loadScenario("late-decision");
    const startedAt = Date.now();
    const { summary } = await runToEnd(scenario, "broadcast", {
      seed: 7,
      store: memoryStore(),
      clock: createVirtualClock({ pacing: { speed: 100 } }),
    });
    // Only a lower bound: pacing never plays faster than asked (an upper bound would time the machine).
    expect(Date.now() - startedAt).toBeGreaterThanOrEqual(Math.floor(summary.totals.ms / 100) - 20);
  });
});
