import type { ContextStore, Timeline } from "../../context/context-store.js";
import { isRunId } from "../../scenario/run-record.js";
import { listRunIds, listRuns, readFullTimeline } from "./read-run.js";
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
  if (timeline.episodes.length === 0) throw await unknownRunError(store, runId, options);
  return timeline;
}

/** The word for the newest run wherever a run id is taken. */
export const lastRunAlias = "last";

/**
 * The run id a user meant: a whole id, `last` (the newest run), or a unique prefix of one, with or
 * without its mode prefix (`sw-4e5f`, `4e5f`).
 * @throws UnknownRunError when nothing matches (listing recent runs) or a prefix matches several
 */
export async function resolveRunId(
  store: ContextStore,
  input: string,
  options: { signal?: AbortSignal; storeName?: string } = {},
): Promise<string> {
  if (input === lastRunAlias) {
    const [newest] = await listRuns(store, { limit: 1, signal: options.signal });
    if (!newest) throw await unknownRunError(store, input, options);
    return newest.runId;
  }
  if (isRunId(input)) return input;
  const wanted = input.toLowerCase();
  const ids = await listRunIds(store, options.signal);
  const matches = ids.filter((id) => id.startsWith(wanted) || id.slice(3).startsWith(wanted));
  if (matches.length === 1 && matches[0] !== undefined && wanted.length > 0) return matches[0];
  const ambiguous = matches.length > 1 ? matches.sort() : undefined;
  throw await unknownRunError(store, input, options, ambiguous);
}

/**
 * The error for a run id that names no run (or, with `matches`, several): it lists the most recent
 * runs, so the user can pick the one they meant.
 */
async function unknownRunError(
  store: ContextStore,
  runId: string,
  options: { signal?: AbortSignal; storeName?: string },
  matches?: readonly string[],
): Promise<UnknownRunError> {
  const recent = await listRuns(store, { limit: suggestions, signal: options.signal });
  return new UnknownRunError({
    runId,
    recentRunIds: recent.map((run) => run.runId),
    storeName: options.storeName,
    ...(matches ? { matches } : {}),
  });
}
