import { SharedCtxError } from "../../errors.js";

/** One episode compile could not turn into a memory, and why (never a raw driver message). */
export interface SkippedEpisode {
  episodeId: string;
  /** The episode's `type`, as sent. */
  type: string;
  /** Why, in words a client can act on, e.g. `the database refused its memory (SQLITE_CONSTRAINT_TRIGGER)`. */
  reason: string;
}

/**
 * A compile met episodes it could not compile. They are skipped for good (a later compile does not
 * retry them, so one bad episode never blocks its subject); every other episode of the call was
 * compiled and committed. The server maps it to 422 `compile_failed`; an async job ends `failed`
 * with this message.
 */
export class CompileEpisodeError extends SharedCtxError {
  override readonly name: string = "CompileEpisodeError";
  readonly subjectId: string;
  /** The skipped episodes, oldest first (at most the first 20 of one call). */
  readonly skipped: readonly SkippedEpisode[];
  /** How many memories the same call did create. */
  readonly memoriesCreated: number;

  constructor(subjectId: string, skipped: readonly SkippedEpisode[], memoriesCreated: number) {
    const first = skipped[0];
    const named = first
      ? `episode ${first.episodeId} (type ${JSON.stringify(first.type.slice(0, 128))}): ${first.reason}`
      : "no episode";
    const more = skipped.length > 1 ? ` and ${skipped.length - 1} more` : "";
    super(
      `Could not compile ${named}${more}. ${skipped.length === 1 ? "It was" : "They were"} skipped; ` +
        `the other episodes of subject ${JSON.stringify(subjectId.slice(0, 256))} compiled (${memoriesCreated} memories created).`,
    );
    this.subjectId = subjectId;
    this.skipped = skipped;
    this.memoriesCreated = memoriesCreated;
  }
}
