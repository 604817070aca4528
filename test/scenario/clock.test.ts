import { getEventListeners } from "node:events";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createSeededRandom, createVirtualClock } from "../../src/scenario/clock.js";
import { deferred } from "../support/deferred.js";

afterEach(() => {
  vi.useRealTimers();
});

/** A pacing on a fake real clock that only each wait moves; it records how long it waited. */
function recordedPacing(speed: number) {
  let realNow = 0;
  const waits: number[] = [];
  return {
    waits,
    pacing: {
      speed,
      now: () => realNow,
      wait: async (ms: number) => {
        waits.push(ms);
        realNow += ms;
      },
    },
  };
}

/** Lets the clock's driver run: it looks for idleness over a few event-loop turns. */
async function settle(turns = 200): Promise<void> {
  for (let index = 0; index < turns; index += 1) {
    await new Promise((resolve) => setImmediate(resolve));
  }
}

describe("createVirtualClock", () => {
  it("fires timers in time order, jumping when everyone waits", async () => {
    const clock = createVirtualClock();
    const order: string[] = [];
    await Promise.all([
      clock.sleep(300).then(() => order.push(`b@${clock.now()}`)),
      clock.sleep(100).then(() => order.push(`a@${clock.now()}`)),
      clock.sleep(300).then(() => order.push(`c@${clock.now()}`)),
    ]);
    expect(order).toEqual(["a@100", "b@300", "c@300"]);
  });

  it("does not move time while tracked work is in flight", async () => {
    const clock = createVirtualClock();
    const work = deferred<string>();
    const order: string[] = [];
    const tracked = clock
      .track(work.promise)
      .then((value) => order.push(`${value}@${clock.now()}`));
    const timer = clock.sleep(50).then(() => order.push(`timer@${clock.now()}`));
    await new Promise((resolve) => setImmediate(resolve));
    work.resolve("work");
    await Promise.all([tracked, timer]);
    expect(order).toEqual(["work@0", "timer@50"]);
  });

  it("rejects an aborted sleep and forgets its timer", async () => {
    const clock = createVirtualClock();
    const controller = new AbortController();
    const sleeping = clock.sleep(1000, controller.signal);
    controller.abort(new Error("stop"));
    await expect(sleeping).rejects.toThrow("stop");
    expect(clock.pendingTimers()).toBe(0);
  });

  describe("options.pacing.speed", () => {
    it.each([0, -1, Number.NaN])("refuses a speed of %s, naming it", (speed) => {
      expect(() => createVirtualClock({ pacing: { speed } })).toThrow(
        new RangeError(`speed must be > 0 (got ${speed})`),
      );
    });

    it("takes any speed above 0", () => {
      expect(() => createVirtualClock({ pacing: { speed: 0.01 } })).not.toThrow();
    });
  });

  describe("options.pacing", () => {
    it("waits for real time to catch up, counted from the clock's start", async () => {
      const { waits, pacing } = recordedPacing(2);
      const clock = createVirtualClock({ start: 1000, pacing });
      await clock.sleep(100);
      expect(clock.now()).toBe(1100);
      // 100 ms of scenario time at speed 2: 50 ms of real time, whatever the clock's start.
      expect(waits).toEqual([50]);
    });

    it("does not wait for a millisecond or less", async () => {
      const { waits, pacing } = recordedPacing(1);
      const clock = createVirtualClock({ pacing });
      await clock.sleep(1);
      expect(clock.now()).toBe(1);
      expect(waits).toEqual([]);
    });

    it("waits on a real timer by default", async () => {
      vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date"] });
      vi.setSystemTime(0);
      const clock = createVirtualClock({ pacing: { speed: 1 }, idleTurns: 1 });
      let woke = false;
      const sleeping = clock.sleep(1000).then(() => {
        woke = true;
      });
      await settle();
      // One timer for the time left, not a loop polling the real clock.
      expect(vi.getTimerCount()).toBe(1);
      await vi.advanceTimersByTimeAsync(990);
      await settle();
      expect(woke).toBe(false);
      await vi.advanceTimersByTimeAsync(10);
      await sleeping;
      expect(clock.now()).toBe(1000);
    });
  });

  describe("sleep", () => {
    it("keeps playing after it ran out of timers", async () => {
      const clock = createVirtualClock({ idleTurns: 2 });
      await clock.sleep(10);
      await settle();
      await clock.sleep(10);
      expect(clock.now()).toBe(20);
    }, 2000);

    it("refuses at once a signal already aborted, setting no timer", async () => {
      const clock = createVirtualClock();
      const controller = new AbortController();
      controller.abort(new Error("already stopped"));
      await expect(clock.sleep(10, controller.signal)).rejects.toThrow("already stopped");
      expect(clock.pendingTimers()).toBe(0);
      expect(clock.now()).toBe(0);
    });

    it("rejects with an AbortError for a signal aborted without a reason", async () => {
      const clock = createVirtualClock();
      const signal = { aborted: true, reason: undefined } as unknown as AbortSignal;
      const error = await clock.sleep(10, signal).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(DOMException);
      expect(error).toMatchObject({ name: "AbortError", message: "The operation was aborted." });
    });

    it("forgets only the aborted sleep's timer", async () => {
      const clock = createVirtualClock();
      const controller = new AbortController();
      const aborted = clock.sleep(100, controller.signal).catch((error: unknown) => error);
      const other = clock.sleep(200);
      expect(clock.pendingTimers()).toBe(2);
      controller.abort(new Error("stop"));
      expect(clock.pendingTimers()).toBe(1);
      await expect(aborted).resolves.toEqual(new Error("stop"));
      await other;
      expect(clock.now()).toBe(200);
    });

    it("leaves no listener on the signal once it is over, woken or aborted", async () => {
      const clock = createVirtualClock();
      const woken = new AbortController();
      await clock.sleep(10, woken.signal);
      expect(getEventListeners(woken.signal, "abort")).toHaveLength(0);

      const aborted = new AbortController();
      const sleeping = clock.sleep(10, aborted.signal).catch(() => undefined);
      expect(getEventListeners(aborted.signal, "abort")).toHaveLength(1);
      aborted.abort();
      await sleeping;
      expect(getEventListeners(aborted.signal, "abort")).toHaveLength(0);
    });
  });
});

describe("createSeededRandom", () => {
  it("repeats for a seed and differs across seeds", () => {
    const a = createSeededRandom(7);
    const b = createSeededRandom(7);
    const c = createSeededRandom(8);
    const first = [a(), a(), a()];
    expect([b(), b(), b()]).toEqual(first);
    expect([c(), c(), c()]).not.toEqual(first);
    expect(first.every((value) => value >= 0 && value < 1)).toBe(true);
  });

  // A seed names the same run on every machine and in every version: the values are mulberry32's.
  it.each([
    [0, [0.26642920868471265, 0.0003297457005828619]],
    [7, [0.011704753153026104, 0.06195825757458806, 0.97690763277933]],
  ])("gives mulberry32's values for seed %i", (seed, values) => {
    const random = createSeededRandom(seed);
    expect(values.map(() => random())).toEqual(values);
  });
});
