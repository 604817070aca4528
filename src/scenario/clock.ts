/**
 * Time for a scenario run, injected so that runs are reproducible. Every run plays on a virtual
 * scenario clock, which jumps to the next timer as soon as every agent is waiting: store calls and
 * model calls take no scenario time, so a run's outcome never depends on machine load or on the
 * store's latency. For people watching live, the same clock is paced (`--speed`): it waits for real
 * time to catch up before each jump, which changes when things are shown, never what happens.
 */

import type { Clock } from "../coordination/clock.js";
import type { PlaybackMember } from "./playback-group.js";

export type { Clock } from "../coordination/clock.js";

function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException("The operation was aborted.", "AbortError");
}

interface VirtualTimer {
  due: number;
  sequence: number;
  resolve(): void;
}

/** A clock whose time only moves when everything is waiting on it. */
export interface VirtualClock extends Clock {
  /** Timers not yet fired. */
  pendingTimers(): number;
}

/**
 * Real-time pacing of a virtual clock, for people watching a run live: scenario time may not run
 * ahead of real time × `speed`. It only delays when time jumps; it never changes what happens.
 */
export interface ClockPacing {
  /** 1 = the scenario's timings as written; 10 = ten times faster. */
  speed: number;
  /** @default Date.now */
  now?: () => number;
  /** @default setTimeout */
  wait?: (ms: number) => Promise<void>;
  /** Plays in step with the other runs of a group (the demo's two panes). @default alone */
  member?: PlaybackMember;
}

/** Options of {@link createVirtualClock}. */
export interface VirtualClockOptions {
  /**
   * Plays the run no faster than `speed` × real time. Without it, time jumps at once.
   * @default none (as fast as the work allows)
   */
  pacing?: ClockPacing;
  /**
   * How many event-loop turns without activity count as "everyone is waiting". In-process stores
   * settle within a few turns; raise it for slower in-process work. @default 20
   */
  idleTurns?: number;
  /** Starting time. @default 0 */
  start?: number;
}

/**
 * A deterministic clock for tests (and replays): when every task is blocked on a timer or on
 * nothing, time jumps to the earliest timer and fires every timer due then, in creation order.
 * Work passed to `track` holds time still until it settles.
 */
export function createVirtualClock(options: VirtualClockOptions = {}): VirtualClock {
  const idleTurns = options.idleTurns ?? 20;
  let time = options.start ?? 0;
  const startTime = time;
  const pacing = options.pacing;
  if (pacing !== undefined && !(pacing.speed > 0)) {
    throw new RangeError(`speed must be > 0 (got ${pacing.speed})`);
  }
  const realNow = pacing?.now ?? Date.now;
  const realWait =
    pacing?.wait ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const realOrigin = realNow();
  const member = pacing?.member;
  let sequence = 0;
  let timers: VirtualTimer[] = [];
  const tracked = new Set<Promise<unknown>>();
  let driving = false;
  let queue: Promise<unknown> = Promise.resolve();

  const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

  async function drive(): Promise<void> {
    driving = true;
    try {
      for (;;) {
        for (let index = 0; index < idleTurns; index += 1) await turn();
        if (tracked.size > 0) {
          member?.busy(time);
          await Promise.race([...tracked]).catch(() => undefined);
          continue;
        }
        const first = timers[0];
        member?.idle(time, first?.due ?? Number.POSITIVE_INFINITY);
        if (first === undefined) return;
        if (member !== undefined && !member.mayJumpTo(first.due)) {
          // Another run shown beside this one has not reached that moment yet: wait for it.
          await member.changed();
          continue;
        }
        if (pacing !== undefined) {
          // Hold the jump until real time catches up; then look again (a timer may be gone).
          const realDue = realOrigin + (first.due - startTime) / pacing.speed;
          const ahead = realDue - realNow();
          if (ahead > 1) {
            await realWait(ahead);
            continue;
          }
        }
        time = Math.max(time, first.due);
        const due = timers.filter((timer) => timer.due <= time);
        timers = timers.filter((timer) => timer.due > time);
        for (const timer of due) timer.resolve();
      }
    } finally {
      driving = false;
    }
  }

  function track<T>(work: Promise<T>): Promise<T> {
    tracked.add(work);
    const release = () => {
      tracked.delete(work);
    };
    work.then(release, release);
    return work;
  }

  function insert(timer: VirtualTimer): void {
    timers.push(timer);
    timers.sort((a, b) => a.due - b.due || a.sequence - b.sequence);
    if (!driving) void drive();
  }

  return {
    now: () => time,
    sleep: (ms, signal) =>
      new Promise<void>((resolve, reject) => {
        if (signal?.aborted) {
          reject(abortReason(signal));
          return;
        }
        const timer: VirtualTimer = {
          due: time + Math.max(0, ms),
          sequence: sequence++,
          resolve: () => {
            signal?.removeEventListener("abort", onAbort);
            resolve();
          },
        };
        const onAbort = () => {
          timers = timers.filter((candidate) => candidate !== timer);
          reject(signal ? abortReason(signal) : undefined);
        };
        signal?.addEventListener("abort", onAbort, { once: true });
        insert(timer);
      }),
    track,
    exclusive: <T>(work: () => Promise<T>): Promise<T> => {
      const run = queue.then(work, work);
      queue = run.catch(() => undefined);
      return track(run);
    },
    pendingTimers: () => timers.length,
  };
}

/** A small seeded PRNG (mulberry32): the same seed gives the same jitter on every machine. */
export function createSeededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let mixed = state;
    mixed = Math.imul(mixed ^ (mixed >>> 15), mixed | 1);
    mixed ^= mixed + Math.imul(mixed ^ (mixed >>> 7), mixed | 61);
    return ((mixed ^ (mixed >>> 14)) >>> 0) / 4294967296;
  };
}
