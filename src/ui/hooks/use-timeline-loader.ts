import { type Dispatch, useEffect } from "react";
import { messageOf } from "../../errors.js";
import type { RunTimeline } from "../format/run-timeline.js";
import type { DemoAction, TimelineLoad } from "../state/demo-reducer.js";

/** Reads a run's timeline (from the store the demo writes to). */
export type LoadTimeline = (runId: string) => Promise<RunTimeline>;

/** Loads the timeline the reducer asked for (state `loading`) and reports the result. */
export function useTimelineLoader(
  load: LoadTimeline,
  timeline: TimelineLoad | undefined,
  dispatch: Dispatch<DemoAction>,
): void {
  const runId = timeline?.status === "loading" ? timeline.runId : undefined;
  useEffect(() => {
    if (runId === undefined) return;
    let cancelled = false;
    load(runId).then(
      (loaded) => {
        if (!cancelled) dispatch({ type: "timeline-load", timeline: loaded });
      },
      (error: unknown) => {
        if (!cancelled) dispatch({ type: "timeline-fail", message: messageOf(error) });
      },
    );
    return () => {
      cancelled = true;
    };
  }, [load, runId, dispatch]);
}
