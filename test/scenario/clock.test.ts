import { describe, expect, it } from "vitest";
import { createSeededRandom, createVirtualClock } from "../../src/scenario/clock.js";
import { deferred } from "../support/deferred.js";

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
});
