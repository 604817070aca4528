import type { ContextStore } from "../../context/context-store.js";
import {
  forEachTimelinePage,
  readWholeTimeline as readFullTimeline,
} from "../../context/whole-timeline.js";
import { fromRunEventEpisode, fromRunStopEpisode, isRunId } from "../../scenario/run-record.js";
import type { RunListing } from "../format/runs-table.js";

/** A subject's whole timeline, read page by page (oldest first); or folded one page at a time. */
export { forEachTimelinePage, readFullTimeline };

/** Statewave caps a timeline page at 100 episodes and 100 memories. */
const pageSize = 100;

/** Every subject id in the store that names a run. */
export async function listRunIds(store: ContextStore, signal?: AbortSignal): Promise<string[]> {
  const ids: string[] = [];
  for (let offset = 0; ; offset += 200) {
    const page = await store.listSubjects({ limit: 200, offset, signal });
    ids.push(...page.subjects.map((subject) => subject.subjectId).filter(isRunId));
    if (page.subjects.length < 200) break;
  }
  return ids;
}

/** One run's listing, from its first page (run-start) and its last page (run-end). */
async function readListing(
  store: ContextStore,
  runId: string,
  signal?: AbortSignal,
): Promise<RunListing> {
  const first = await store.getTimeline(runId, { limit: pageSize, signal });
  let episodes = first.episodes;
  if (episodes.length === pageSize) {
    // Long run: page to the end, where run-end is.
    episodes = (await readFullTimeline(store, runId, { signal })).episodes;
  }
  let listing: RunListing = { runId, startedAt: episodes[0]?.createdAt };
  for (const episode of episodes) {
    const event = fromRunEventEpisode(episode);
    if (event?.type === "run-start") {
      listing = {
        ...listing,
        mode: event.mode,
        scenario: event.scenario,
        task: event.task,
        startedAt: episode.createdAt,
      };
    } else if (event?.type === "run-end") {
      listing = { ...listing, summary: event.summary };
    } else if (event === undefined) {
      const stop = fromRunStopEpisode(episode);
      if (stop) listing = { ...listing, stop: { state: stop.state, reason: stop.reason } };
    }
  }
  return listing;
}

/** The runs in the store, newest first. */
export async function listRuns(
  store: ContextStore,
  options: { limit?: number; signal?: AbortSignal } = {},
): Promise<RunListing[]> {
  const ids = await listRunIds(store, options.signal);
  const listings = await Promise.all(ids.map((id) => readListing(store, id, options.signal)));
  listings.sort((a, b) => (b.startedAt ?? "").localeCompare(a.startedAt ?? ""));
  return options.limit === undefined ? listings : listings.slice(0, options.limit);
}
