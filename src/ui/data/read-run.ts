import type { ContextStore, Episode } from "../../context/context-store.js";
import {
  forEachTimelinePage,
  readWholeTimeline as readFullTimeline,
} from "../../context/whole-timeline.js";
import { fromRunEventEpisode, fromRunStopEpisode, isRunId } from "../../scenario/run-record.js";
import type { RunListing } from "../format/runs-table.js";

/** A subject's whole timeline, read page by page (oldest first); or folded one page at a time. */
export { forEachTimelinePage, readFullTimeline };

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

/** One run's listing, from its first page (run-start) and, for a long run, the pages after it. */
export async function readRunListing(
  store: ContextStore,
  runId: string,
  signal?: AbortSignal,
): Promise<RunListing> {
  let listing: RunListing = { runId };
  // A page at a time: only the listing is kept, never the run's episodes (run-end is on its last page).
  await forEachTimelinePage(
    store,
    runId,
    (page) => {
      for (const episode of page.episodes) listing = withEpisode(listing, episode);
    },
    signal ? { signal } : {},
  );
  return listing;
}

/** `listing` with what `episode` says of the run: its start, its end, or how it stopped. */
function withEpisode(listing: RunListing, episode: Episode): RunListing {
  const started = listing.startedAt === undefined ? { startedAt: episode.createdAt } : {};
  const event = fromRunEventEpisode(episode);
  if (event?.type === "run-start") {
    return {
      ...listing,
      mode: event.mode,
      scenario: event.scenario,
      task: event.task,
      startedAt: episode.createdAt,
    };
  }
  if (event?.type === "run-end") return { ...listing, ...started, summary: event.summary };
  if (event === undefined) {
    const stop = fromRunStopEpisode(episode);
    if (stop) return { ...listing, ...started, stop: { state: stop.state, reason: stop.reason } };
  }
  return { ...listing, ...started };
}

/** The runs in the store, newest first. */
export async function listRuns(
  store: ContextStore,
  options: { limit?: number; signal?: AbortSignal } = {},
): Promise<RunListing[]> {
  const ids = await listRunIds(store, options.signal);
  const listings = await Promise.all(ids.map((id) => readRunListing(store, id, options.signal)));
  listings.sort((a, b) => (b.startedAt ?? "").localeCompare(a.startedAt ?? ""));
  return options.limit === undefined ? listings : listings.slice(0, options.limit);
}
