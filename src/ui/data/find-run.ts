import type { ContextStore, Timeline } from "../../context/context-store.js";
import { listRuns, readFullTimeline } from "./read-run.js";
import { UnknownRunError } from "./unknown-run-error.js";

/** How many recent run ids an unknown-run error suggests. */
const suggestions = 5;

/**
 * A run's whole timeline.
 * @throws UnknownRunError (listing the most recent run ids) when the store has nothing for `runId`
 */
export async function readRunTimeline(
  store: ContextStore,
  runId: string,
  options: { signal?: AbortSignal; storeName?: string } = {},
): Promise<Timeline> {
  const timeline = await readFullTimeline(store, runId, { signal: options.signal });
  if (timeline.episodes.length === 0) {
    const recent = await listRuns(store, { limit: suggestions, signal: options.signal });
    throw new UnknownRunError({
      runId,
      recentRunIds: recent.map((run) => run.runId),
      storeName: options.storeName,
    });
  }
  return timeline;
}
