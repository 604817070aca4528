/**
 * How a promotion is written down in a project subject: the metadata key on a promoted decision's
 * episode, the episode type of a reviewer's verdict, and the idempotency keys that make a second
 * promotion of the same run store nothing. Pure: no store, no clock.
 */
import { createHash } from "node:crypto";
import type { JsonObject } from "../context/context-store.js";

/** Metadata key on a promoted decision's episode: where it came from (see {@link PromotionSource}). */
export const promotionKey = "promotion";

/** Provenance key on a promoted decision's episode: the same source, for provenance readers. */
export const promotedFromKey = "promoted_from";

/**
 * Episode type of an approval or a rejection. Its payload has no `content`/`text`/`summary`, so
 * compile makes no memory of it: a verdict is a record of the review, not knowledge to rank.
 */
export const promotionReviewType = "promotion_review";

/** Where a promoted decision came from: its run, its memory there, its author and episodes. */
export interface PromotionSource {
  /** The run's subject id. */
  subjectId: string;
  /** The decision's memory id in the run. */
  memoryId: string;
  /** The episodes the run's memory was compiled from. */
  episodeIds: string[];
  /** Who wrote it in the run. */
  author: string;
  /** Its authority in the run (the promoted one may be higher when a reviewer approved it). */
  authority: string;
}

/** A reviewer's verdict on one promotion item, as recorded in the project subject. */
export interface PromotionVerdict {
  verdict: "approved" | "rejected";
  /** The run's subject id. */
  subjectId: string;
  /** The item: the decision's memory id in the run. */
  memoryId: string;
  /** Who gave it. */
  by: string;
  /** When the store recorded it (ISO-8601). */
  at: string;
  /** The verdict's own episode in the project. */
  episodeId: string;
}

/** Statewave's idempotency keys are 1..256 characters; longer ones are hashed to fit. */
const maxKeyLength = 256;

/**
 * The idempotency key of one write of a promotion: `promote:<run-subject>:<memory-id>` for the
 * decision itself, `promote-approved:` / `promote-rejected:` for a verdict. Hashed (sha256) when
 * the subject id is so long that the key would not fit.
 */
export function promotionIdempotencyKey(
  what: "promote" | "promote-approved" | "promote-rejected",
  runSubjectId: string,
  memoryId: string,
): string {
  const key = `${what}:${runSubjectId}:${memoryId}`;
  if (key.length <= maxKeyLength) return key;
  const digest = createHash("sha256").update(`${runSubjectId}\u0000${memoryId}`).digest("hex");
  return `${what}:sha256:${digest}`;
}

function stringField(object: JsonObject, key: string): string | undefined {
  const value = object[key];
  return typeof value === "string" ? value : undefined;
}

/** The promotion source an episode's metadata records, when it is a promoted decision's. */
export function promotionSourceOf(metadata: JsonObject): PromotionSource | undefined {
  const value = metadata[promotionKey];
  if (typeof value !== "object" || value === null || Array.isArray(value)) return undefined;
  const subjectId = stringField(value, "subjectId");
  const memoryId = stringField(value, "memoryId");
  if (subjectId === undefined || memoryId === undefined) return undefined;
  const episodeIds = Array.isArray(value.episodeIds)
    ? value.episodeIds.filter((id): id is string => typeof id === "string")
    : [];
  return {
    subjectId,
    memoryId,
    episodeIds,
    author: stringField(value, "author") ?? "unknown",
    authority: stringField(value, "authority") ?? "agent",
  };
}

/** The source as JSON, for an episode's metadata and provenance. */
export function promotionSourceJson(source: PromotionSource): JsonObject {
  return {
    subjectId: source.subjectId,
    memoryId: source.memoryId,
    episodeIds: [...source.episodeIds],
    author: source.author,
    authority: source.authority,
  };
}

/** The verdict a `promotion_review` episode records, or undefined for any other episode. */
export function promotionVerdictOf(episode: {
  id: string;
  type: string;
  source: string;
  createdAt: string;
  payload: JsonObject;
}): PromotionVerdict | undefined {
  if (episode.type !== promotionReviewType) return undefined;
  const verdict = episode.payload.verdict;
  const subjectId = stringField(episode.payload, "runSubjectId");
  const memoryId = stringField(episode.payload, "memoryId");
  if ((verdict !== "approved" && verdict !== "rejected") || !subjectId || !memoryId) {
    return undefined;
  }
  return {
    verdict,
    subjectId,
    memoryId,
    by: episode.source,
    at: episode.createdAt,
    episodeId: episode.id,
  };
}
