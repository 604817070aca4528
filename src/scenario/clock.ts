/**
 * Time for a scenario run, injected so that runs are reproducible: a real clock scaled by
 * `--speed` for people, and a virtual clock for tests, which jumps to the next timer as soon as
 * every agent is waiting (no sleeps, no wall time, same order every time).
 */

/** The time source every pipeline step takes its duration from. Times are scenario milliseconds. */
export interface Clock {
  /** Scenario milliseconds since an arbitrary origin. */
  now(): number;
  /** Resolves after `ms` scenario milliseconds; rejects with `signal.reason` when aborted. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
  /**
   * Marks work that takes real time but no scenario time (a model call), so a virtual clock does not
   * move time past it. A real clock returns the promise as it is.
   */
  track<T>(work: Promise<T>): Promise<T>;
}

/** Options of {@link createRealClock}. */
export interface RealClockOptions {
  /** 1 = scenario timings as written; 10 = ten times faster. @default 1 */
  speed?: number;
  /** @default Date.now */
  now?: () => number;
}

function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException("The operation was aborted.", "AbortError");
}

/** Wall-clock time divided by `speed`: a 4000 ms step takes 400 ms at speed 10. */
export function createRealClock(options: RealClockOptions = {}): Clock {
  const speed = options.speed ?? 1;
  if (!(speed > 0)) throw new RangeError(`speed must be > 0 (got ${speed})`);
  const wallNow = options.now ?? Date.now;
  const origin = wallNow();
  return {
    now: () => (wallNow() - origin) * speed,
    sleep: (ms, signal) =>
      new Promise<void>((resolve, reject) => {
        if (signal?.aborted) {
          reject(abortReason(signal));
          return;
        }
        const onAbort = () => {
          clearTimeout(timer);
          reject(signal ? abortReason(signal) : undefined);
        };
        const timer = setTimeout(() => {
          signal?.removeEventListener("abort", onAbort);
          resolve();
        }, ms / speed);
        signal?.addEventListener("abort", onAbort, { once: true });
      }),
    track: (work) => work,
  };
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

/** Options of {@link createVirtualClock}. */
export interface VirtualClockOptions {
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
  let sequence = 0;
  let timers: VirtualTimer[] = [];
  const tracked = new Set<Promise<unknown>>();
  let driving = false;

  const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

  async function drive(): Promise<void> {
    driving = true;
    try {
      for (;;) {
        for (let index = 0; index < idleTurns; index += 1) await turn();
        if (tracked.size > 0) {
          await Promise.race([...tracked]).catch(() => undefined);
          continue;
        }
        const first = timers[0];
        if (first === undefined) return;
        time = Math.max(time, first.due);
        const due = timers.filter((timer) => timer.due <= time);
        timers = timers.filter((timer) => timer.due > time);
        for (const timer of due) timer.resolve();
      }
    } finally {
      driving = false;
    }
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
    track: <T>(work: Promise<T>): Promise<T> => {
      tracked.add(work);
      const release = () => {
        tracked.delete(work);
      };
      work.then(release, release);
      return work;
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
