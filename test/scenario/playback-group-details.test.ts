import { describe, expect, it } from "vitest";
import { createPlaybackGroup, type PlaybackMember } from "../../src/scenario/playback-group.js";

/** Whether `promise` has settled once the microtasks queued so far have run. */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  void promise.then(() => {
    done = true;
  });
  await new Promise((resolve) => setImmediate(resolve));
  return done;
}

describe("createPlaybackGroup", () => {
  describe("member.mayJumpTo", () => {
    it("is never held back by the member itself", () => {
      const alone = createPlaybackGroup().join();
      alone.busy(10);
      expect(alone.mayJumpTo(50)).toBe(true);
      alone.idle(10, 20);
      expect(alone.mayJumpTo(50)).toBe(true);
    });

    it("holds back a jump past a member that has not moved yet", () => {
      const group = createPlaybackGroup();
      const runner = group.join();
      group.join();
      expect(runner.mayJumpTo(0)).toBe(true);
      expect(runner.mayJumpTo(1)).toBe(false);
    });

    it("lets an idle member be passed up to the time it waits for, not the time it is at", () => {
      const group = createPlaybackGroup();
      const runner = group.join();
      const other = group.join();
      other.idle(0, 100);
      expect(runner.mayJumpTo(50)).toBe(true);
      expect(runner.mayJumpTo(100)).toBe(true);
      expect(runner.mayJumpTo(101)).toBe(false);
    });

    it("lets a busy member be passed up to the time it works at", () => {
      const group = createPlaybackGroup();
      const runner = group.join();
      const other = group.join();
      other.idle(0, Number.POSITIVE_INFINITY);
      expect(runner.mayJumpTo(1000)).toBe(true);
      other.busy(50);
      expect(runner.mayJumpTo(50)).toBe(true);
      expect(runner.mayJumpTo(51)).toBe(false);
    });

    it("no longer counts a member that left", () => {
      const group = createPlaybackGroup();
      const runner = group.join();
      const other = group.join();
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
      const group = createPlaybackGroup();
      const runner = group.join();
      const other = group.join();
      const changed = runner.changed();
      expect(await settled(changed)).toBe(false);
      change(other);
      expect(await settled(changed)).toBe(true);
      // The next change is a new one.
      expect(await settled(runner.changed())).toBe(false);
    });
  });
});
