/** The time source every pipeline step takes its duration from. Times are scenario milliseconds. */
export interface Clock {
  /** Scenario milliseconds since an arbitrary origin. */
  now(): number;
  /** Resolves after `ms` scenario milliseconds; rejects with `signal.reason` when aborted. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
  /**
   * Marks work that takes real time but no scenario time (a model call), so the clock does not
   * move time past it.
   */
  track<T>(work: Promise<T>): Promise<T>;
  /**
   * Runs shared-store work one call at a time, in the order it was asked for, taking no scenario
   * time. Concurrent agents then see each other's writes in an order fixed by the scenario, never
   * by which HTTP response came back first.
   */
  exclusive<T>(work: () => Promise<T>): Promise<T>;
}
