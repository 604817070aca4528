import { type Dispatch, useEffect } from "react";
import { messageOf } from "../../errors.js";
import type { DemoRuns, RunEventSource, StartDemoRuns } from "../run-source.js";
import type { DemoAction, PaneSide } from "../state/demo-reducer.js";

/** Which run feeds which side: the baseline pipeline on the left, the shared context on the right. */
const sources: ReadonlyArray<readonly [PaneSide, (runs: DemoRuns) => RunEventSource]> = [
  ["baseline", (runs) => runs.naive],
  ["shared", (runs) => runs.statewave],
];

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
        if (runs.focus) dispatch({ type: "focus-set", focus: runs.focus });
        for (const [side, sourceOf] of sources) {
          const source = sourceOf(runs);
          unsubscribes.push(
            source.subscribe((event) => {
              if (!cancelled) dispatch({ type: "run-event", side, event });
            }),
          );
          source.done.catch((error: unknown) => {
            if (!cancelled) dispatch({ type: "run-fail", side, message: messageOf(error) });
          });
        }
      },
      (error: unknown) => {
        if (cancelled) return;
        for (const [side] of sources)
          dispatch({ type: "run-fail", side, message: messageOf(error) });
      },
    );
    return () => {
      cancelled = true;
      for (const unsubscribe of unsubscribes) unsubscribe();
      void stop?.();
    };
  }, [start, scenario, round, dispatch]);
}
