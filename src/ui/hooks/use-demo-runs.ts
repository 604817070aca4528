import { type Dispatch, useEffect } from "react";
import type { RunMode } from "../../scenario/scenario-events.js";
import type { StartDemoRuns } from "../run-source.js";
import type { DemoAction } from "../state/demo-reducer.js";

const modes: readonly RunMode[] = ["naive", "statewave"];

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Starts both pipelines for `scenario` and feeds their events to the demo reducer. Runs again
 * whenever `round` changes (the `r` and `s` keys); the previous round is stopped first.
 */
export function useDemoRuns(
  start: StartDemoRuns,
  scenario: string,
  round: number,
  dispatch: Dispatch<DemoAction>,
): void {
  // biome-ignore lint/correctness/useExhaustiveDependencies: `round` is the restart trigger: a rerun of the same scenario must start new pipelines.
  useEffect(() => {
    let cancelled = false;
    const unsubscribes: Array<() => void> = [];
    let stop: (() => Promise<void>) | undefined;
    start(scenario).then(
      (runs) => {
        stop = runs.stop;
        if (cancelled) {
          void runs.stop();
          return;
        }
        for (const mode of modes) {
          const source = runs[mode];
          unsubscribes.push(
            source.subscribe((event) => {
              if (!cancelled) dispatch({ type: "run-event", mode, event });
            }),
          );
          source.done.catch((error: unknown) => {
            if (!cancelled) dispatch({ type: "run-fail", mode, message: messageOf(error) });
          });
        }
      },
      (error: unknown) => {
        if (cancelled) return;
        for (const mode of modes) dispatch({ type: "run-fail", mode, message: messageOf(error) });
      },
    );
    return () => {
      cancelled = true;
      for (const unsubscribe of unsubscribes) unsubscribe();
      void stop?.();
    };
  }, [start, scenario, round, dispatch]);
}
