import type { Episode } from "../../context/context-store.js";
import { fromRunEventEpisode } from "../../scenario/run-record.js";
import { buildRunTimeline, type TimelineFilter, type TimelineRow } from "./run-timeline.js";

/**
 * A timeline's rows built one page of episodes at a time, the same rows {@link buildRunTimeline}
 * builds over the whole subject: each page is built after the few episodes of earlier pages its
 * rows depend on (the run's start, which names the agents and sets the clock's origin, and the
 * latest run event, whose time an episode without one of its own shows), and their rows dropped.
 */
export class TimelineRowPager {
  readonly #subjectId: string;
  readonly #filter: TimelineFilter;
  /** The run-start episode, else the subject's first episode: the origin of the clocks. */
  #anchor: Episode | undefined;
  #anchorIsStart = false;
  /** The latest episode that carried a run event. */
  #lastEvent: Episode | undefined;
  #sawRunStart = false;

  constructor(subjectId: string, filter: TimelineFilter = {}) {
    this.#subjectId = subjectId;
    this.#filter = filter;
  }

  /** Whether a run-start was among the episodes so far (a run's rows are on its own clock). */
  get sawRunStart(): boolean {
    return this.#sawRunStart;
  }

  /** The rows of the next page of episodes (oldest first), as the whole subject's build has them. */
  rowsOf(page: readonly Episode[]): TimelineRow[] {
    const context = [this.#anchor, this.#lastEvent].filter(
      (episode, index, all): episode is Episode =>
        episode !== undefined && all.indexOf(episode) === index,
    );
    const contextIds = new Set(context.map((episode) => episode.id));
    const built = buildRunTimeline(
      this.#subjectId,
      { episodes: [...context, ...page], memories: [] },
      this.#filter,
    );
    this.#remember(page);
    return built.rows.filter((row) => !contextIds.has(row.episodeId));
  }

  #remember(page: readonly Episode[]): void {
    for (const episode of page) {
      const event = fromRunEventEpisode(episode);
      this.#anchor ??= episode;
      if (event === undefined) continue;
      this.#lastEvent = episode;
      if (event.type === "run-start" && !this.#anchorIsStart) {
        this.#anchor = episode;
        this.#anchorIsStart = true;
        this.#sawRunStart = true;
      }
    }
  }
}
