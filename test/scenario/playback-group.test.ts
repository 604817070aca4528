import { afterEach, describe, expect, it } from "vitest";
import type { ContextStore } from "../../src/context/context-store.js";
import { EmbeddedStore } from "../../src/context/embedded/embedded-store.js";
import { loadScenario } from "../../src/scenario/load-scenario.js";
import { createPlaybackGroup } from "../../src/scenario/playback-group.js";
import type { ScenarioEvent } from "../../src/scenario/scenario-events.js";
import { startRun } from "../../src/scenario/scenario-runner.js";
import { sequentialIds } from "./support/run-scenario.js";

const stores: EmbeddedStore[] = [];
afterEach(async () => {
  for (const store of stores.splice(0)) await store.close();
});

/** A store whose every call takes `ms` real milliseconds. */
function slow(ms: number): ContextStore {
  const inner = new EmbeddedStore({ path: ":memory:" });
  stores.push(inner);
  return new Proxy(inner, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (typeof value !== "function") return value;
      if (property === "watch" || property === "close") return value.bind(target);
      return async (...args: unknown[]) => {
        await new Promise((resolve) => setTimeout(resolve, ms));
        return (value as (...inner: unknown[]) => unknown).apply(target, args);
      };
    },
  });
}

describe("createPlaybackGroup", () => {
  it("keeps two runs shown side by side at the same scenario moment, whatever their stores cost", async () => {
    const scenario = await loadScenario("late-decision");
    const fast = new EmbeddedStore({ path: ":memory:" });
    stores.push(fast);
    const group = createPlaybackGroup();
    // Fast playback; the shared-context run's store takes real time for every call.
    const common = { scenario, seed: 7, speed: 200, playback: group, generateId: sequentialIds() };
    const baseline = startRun({ ...common, mode: "broadcast", store: fast });
    const shared = startRun({ ...common, mode: "statewave", store: slow(3) });
    // Whenever the baseline emits, the shared run must not be far behind in scenario time.
    let sharedAt = 0;
    let worstLead = 0;
    const sharedEvents: ScenarioEvent[] = [];
    shared.subscribe((event) => {
      sharedAt = event.at;
      sharedEvents.push(event);
    });
    baseline.subscribe((event) => {
      if (sharedEvents.some((seen) => seen.type === "run-end")) return;
      worstLead = Math.max(worstLead, event.at - sharedAt);
    });
    await Promise.all([baseline.done, shared.done]);
    // One scenario step (a think, ≤ 1.8 s) at most: never the whole build (12 s) ahead.
    expect(worstLead).toBeLessThanOrEqual(2_000);
  }, 30_000);
});
