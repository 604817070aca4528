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
  const jumpHold = createJumpHold(options.pacing, time);
  const member = options.pacing?.member;
  const timers = createTimerQueue();
  const tracked = new Set<Promise<unknown>>();
  let driving = false;
  let queue: Promise<unknown> = Promise.resolve();

  /** Moves time while any timer is left: each time everything is waiting, to the next one due. */
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
        const first = timers.first();
        member?.idle(time, first?.due ?? Number.POSITIVE_INFINITY);
        if (first === undefined) return;
        const hold = jumpHold(first.due);
        if (hold !== undefined) {
          await hold;
          continue;
        }
        time = Math.max(time, first.due);
        timers.fireUntil(time);
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

  return {
    now: () => time,
    sleep: (ms, signal) =>
      new Promise<void>((resolve, reject) => {
        if (signal?.aborted) {
          reject(abortReason(signal));
          return;
        }
        const timer = timers.add(time + Math.max(0, ms), () => {
          signal?.removeEventListener("abort", onAbort);
          resolve();
        });
        const onAbort = () => {
          timers.remove(timer);
          reject(signal ? abortReason(signal) : undefined);
        };
        signal?.addEventListener("abort", onAbort, { once: true });
        if (!driving) void drive();
      }),
    track,
    exclusive: <T>(work: () => Promise<T>): Promise<T> => {
      const run = queue.then(work, work);
      queue = run.catch(() => undefined);
      return track(run);
    },
    pendingTimers: () => timers.size(),
  };
}

/** One event-loop turn: what the clock waits, a number of times, before it calls everyone idle. */
function turn(): Promise<void> {
  return new Promise<void>((resolve) => setImmediate(resolve));
}

/** The timers not yet fired, earliest first (in creation order among timers due at once). */
interface TimerQueue {
  first(): VirtualTimer | undefined;
  size(): number;
  add(due: number, resolve: () => void): VirtualTimer;
  /** Drops a timer whose sleep was aborted. */
  remove(timer: VirtualTimer): void;
  /** Fires every timer due by `time`, in order. */
  fireUntil(time: number): void;
}

function createTimerQueue(): TimerQueue {
  let sequence = 0;
  let timers: VirtualTimer[] = [];
  return {
    first: () => timers[0],
    size: () => timers.length,
    add: (due, resolve) => {
      const timer: VirtualTimer = { due, sequence: sequence++, resolve };
      timers.push(timer);
      timers.sort((a, b) => a.due - b.due || a.sequence - b.sequence);
      return timer;
    },
    remove: (timer) => {
      timers = timers.filter((candidate) => candidate !== timer);
    },
    fireUntil: (time) => {
      const due = timers.filter((timer) => timer.due <= time);
      timers = timers.filter((timer) => timer.due > time);
      for (const timer of due) timer.resolve();
    },
  };
}

/**
 * What a jump of time to `due` must wait for first, so that pacing only delays what people see:
 * another run of the playback group that has not reached that moment, or real time catching up
 * under pacing. Nothing (`undefined`) when time may jump now; after a wait, the clock looks again
 * (a timer may be gone).
 */
function createJumpHold(
  pacing: ClockPacing | undefined,
  startTime: number,
): (due: number) => Promise<void> | undefined {
  if (pacing !== undefined && !(pacing.speed > 0)) {
    throw new RangeError(`speed must be > 0 (got ${pacing.speed})`);
  }
  const realNow = pacing?.now ?? Date.now;
  const realWait =
    pacing?.wait ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const realOrigin = realNow();
  const member = pacing?.member;
  return (due) => {
    // Another run shown beside this one has not reached that moment yet: wait for it.
    if (member !== undefined && !member.mayJumpTo(due)) return member.changed();
    if (pacing === undefined) return undefined;
    const realDue = realOrigin + (due - startTime) / pacing.speed;
    const ahead = realDue - realNow();
    return ahead > 1 ? realWait(ahead) : undefined;
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
