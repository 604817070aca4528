import type { Clock } from "../../src/coordination/clock.js";

/**
 * A clock stopped at 0 whose `sleep` returns at once and records how long it was asked to wait:
 * a test reads a wait loop's pacing from `sleeps` without waiting.
 */
export function sleepRecordingClock(): { clock: Clock; sleeps: number[] } {
  const sleeps: number[] = [];
  const clock = {
    now: () => 0,
    sleep: async (ms: number) => {
      sleeps.push(ms);
    },
    track: (work: Promise<unknown>) => work,
    exclusive: (work: () => Promise<unknown>) => work(),
  } as unknown as Clock;
  return { clock, sleeps };
}
