import type { UnstampedEvent } from "../agents/agent-runtime.js";
import type { ContextStore } from "../context/context-store.js";
import { messageOf } from "../errors.js";
import type { Clock } from "./clock.js";
import { toRunEventEpisode, toRunStopEpisode } from "./run-record.js";
import type { ScenarioEvent } from "./scenario-events.js";

/**
 * A run's events as they happen: stamped with the run id and the scenario time, kept in memory for
 * the run's subscribers and its summary, and persisted in the store in order (`toRunEventEpisode`),
 * so `shared-ctx timeline <run-id>` works afterwards.
 */
export interface RunLog {
  /** Every event so far, in order (the same array as the run goes on). */
  readonly events: readonly ScenarioEvent[];
  /** Scenario ms since the run started. */
  elapsed(): number;
  /** Stamps the event, keeps it, queues it for the store and tells every listener. */
  emit(event: UnstampedEvent): void;
  /** Calls `listener` with every past event first, then each new one. Returns unsubscribe. */
  subscribe(listener: (event: ScenarioEvent) => void): () => void;
  /** Waits until every queued event is stored; throws the first error the store gave. */
  flush(): Promise<void>;
  /**
   * Writes how a run that never reaches `run-end` ended, then throws `error` again: `interrupted`
   * when `signal` stopped it (with the signal's reason), else `failed` with the error.
   */
  recordStop(error: unknown, signal: AbortSignal | undefined): Promise<never>;
}

/** What {@link createRunLog} needs. */
export interface RunLogOptions {
  runId: string;
  store: ContextStore;
  /** The run's clock: its time stamps the events, and it tracks the store's writes. */
  clock: Clock;
}

/** Opens a run's log, at the clock's present time (the run's `at: 0`). */
export function createRunLog({ runId, store, clock }: RunLogOptions): RunLog {
  const events: ScenarioEvent[] = [];
  const listeners = new Set<(event: ScenarioEvent) => void>();
  const startedAt = clock.now();
  let persisted: Promise<unknown> = Promise.resolve();
  let persistError: unknown;
  const elapsed = () => clock.now() - startedAt;

  return {
    events,
    elapsed,
    emit: (event) => {
      const stamped = { ...event, runId, at: Math.round(elapsed()) } as ScenarioEvent;
      events.push(stamped);
      persisted = persisted.then(() =>
        clock.track(store.createEpisode(toRunEventEpisode(stamped))).catch((error: unknown) => {
          persistError ??= error;
        }),
      );
      for (const listener of [...listeners]) listener(stamped);
    },
    subscribe: (listener) => {
      for (const event of events) listener(event);
      listeners.add(listener);
      return () => {
        listeners.delete(listener);
      };
    },
    flush: async () => {
      await persisted;
      if (persistError !== undefined) throw persistError;
    },
    // Written after every queued event and before `done` rejects, so the record is whole when
    // the caller exits.
    recordStop: async (error, signal) => {
      const interrupted = signal?.aborted === true;
      const cause: unknown = interrupted ? signal?.reason : error;
      const stop = toRunStopEpisode({
        runId,
        state: interrupted ? "interrupted" : "failed",
        reason: messageOf(cause),
        at: Math.round(elapsed()),
      });
      // A store that cannot take it (the reason the run failed, perhaps) must not hide `error`.
      persisted = persisted.then(() =>
        clock.track(store.createEpisode(stop)).catch(() => undefined),
      );
      await persisted;
      throw error;
    },
  };
}
