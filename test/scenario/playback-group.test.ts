import { afterEach, describe, expect, it } from "vitest";
import type { ContextStore } from "../../src/context/context-store.js";
import { EmbeddedStore } from "../../src/context/embedded/embedded-store.js";
import { loadScenario } from "../../src/scenario/load-scenario.js";
import { createPlaybackGroup, type PlaybackMember } from "../../src/scenario/playback-group.js";
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

/** Whether `promise` has settled once the microtasks queued so far have run. */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  void promise.then(() => {
    done = true;
  });
  await new Promise((resolve) => setImmediate(resolve));
  return done;
}

/** A playback group of two: the `runner` a test moves, and the `other` member it waits for. */
function twoMembers() {
  const group = createPlaybackGroup();
  return { runner: group.join(), other: group.join() };
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

  describe("member.mayJumpTo", () => {
    it("is never held back by the member itself", () => {
      const alone = createPlaybackGroup().join();
      alone.busy(10);
      expect(alone.mayJumpTo(50)).toBe(true);
      alone.idle(10, 20);
      expect(alone.mayJumpTo(50)).toBe(true);
    });

    it("holds back a jump past a member that has not moved yet", () => {
      const { runner } = twoMembers();
      expect(runner.mayJumpTo(0)).toBe(true);
      expect(runner.mayJumpTo(1)).toBe(false);
    });

    it("lets an idle member be passed up to the time it waits for, not the time it is at", () => {
      const { runner, other } = twoMembers();
      other.idle(0, 100);
      expect(runner.mayJumpTo(50)).toBe(true);
      expect(runner.mayJumpTo(100)).toBe(true);
      expect(runner.mayJumpTo(101)).toBe(false);
    });

    it("lets a busy member be passed up to the time it works at", () => {
      const { runner, other } = twoMembers();
      other.idle(0, Number.POSITIVE_INFINITY);
      expect(runner.mayJumpTo(1000)).toBe(true);
      other.busy(50);
      expect(runner.mayJumpTo(50)).toBe(true);
      expect(runner.mayJumpTo(51)).toBe(false);
    });

    it("no longer counts a member that left", () => {
      const { runner, other } = twoMembers();
      other.idle(0, 10);
      expect(runner.mayJumpTo(100)).toBe(false);
      other.leave();
      expect(runner.mayJumpTo(100)).toBe(true);
    });
  });

  describe("member.changed", () => {
    it.each([
      ["turns busy", (member: PlaybackMember) => member.busy(5)],
      ["turns idle", (member: PlaybackMember) => member.idle(5, 9)],
      ["leaves", (member: PlaybackMember) => member.leave()],
    ])("resolves when another member %s, the first time too", async (_label, change) => {
      const { runner, other } = twoMembers();
      const changed = runner.changed();
      expect(await settled(changed)).toBe(false);
      change(other);
      expect(await settled(changed)).toBe(true);
      // The next change is a new one.
      expect(await settled(runner.changed())).toBe(false);
    });
  });
});
