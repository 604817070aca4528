import type {
  Episode,
  GetContextOptions,
  JsonObject,
  ListSubjectsOptions,
  TimelineOptions,
} from "./context-store.js";
import { StoreValidationError } from "./errors/store-validation-error.js";
import { type CursorPair, readTimelineCursor } from "./store-cursors.js";
import {
  inputLimits,
  requireId,
  requireInteger,
  requireOffset,
  requireSearchText,
  type ValidEpisodeInput,
} from "./validate-input.js";

/**
 * The checks and shapes every SQL store (SQLite, Postgres) applies to a request before and after
 * its own queries, written once so both refuse the same input with the same error.
 */

/** The subject of a compile, search, timeline, delete or watch. @throws StoreValidationError */
export function requireSubjectId(subjectId: unknown): string {
  return requireId("subjectId", subjectId, inputLimits.subjectId);
}

/**
 * The id of a memory or an episode to read by id: any string of 1..256 characters (ours are
 * UUIDs; an id no store can hold is refused, not looked up). @throws StoreValidationError
 */
export function requireItemId(field: string, id: unknown): string {
  return requireId(field, id, inputLimits.itemId);
}

/**
 * A context request's subject and task, and its token budget.
 * @throws StoreValidationError naming the field
 */
export function contextRequest(
  subjectId: unknown,
  task: unknown,
  options: GetContextOptions,
): { maxTokens: number } {
  requireSubjectId(subjectId);
  requireSearchText("task", task, inputLimits.task);
  const maxTokens = requireInteger("maxTokens", options.maxTokens, 1, inputLimits.maxTokens, 4000);
  return { maxTokens };
}

/** A timeline page as the SQL stores read it: after a cursor's positions, or from an offset. */
export interface TimelineRequest {
  limit: number;
  offset: number;
  /** Where each list continues (a cursor, or the start when there is neither cursor nor offset). */
  after: CursorPair | null;
  /** Taken from the newest end (`offset` counts from there); `after` is then null. */
  newestFirst: boolean;
}

/**
 * A timeline request's subject and page.
 * @throws StoreValidationError naming the field (a cursor with an offset is refused: which wins
 *   would be a guess); InvalidCursorError
 */
export function timelineRequest(subjectId: unknown, options: TimelineOptions): TimelineRequest {
  requireSubjectId(subjectId);
  const limit = requireInteger("limit", options.limit, 0, inputLimits.timelineLimit, 100);
  const offset = requireOffset("offset", options.offset);
  const cursor = readTimelineCursor(options.cursor);
  if (cursor !== null && offset > 0) {
    throw new StoreValidationError("offset", "0 (or absent) when a cursor is given");
  }
  const newestFirst = options.newestFirst ?? false;
  if (typeof newestFirst !== "boolean") throw new StoreValidationError("newestFirst", "a boolean");
  if (newestFirst && cursor !== null) {
    throw new StoreValidationError("newestFirst", "false (or absent) when a cursor is given");
  }
  const start = offset === 0 && !newestFirst ? { episode: 0, memory: 0 } : null;
  return { limit, offset, after: cursor ?? start, newestFirst };
}

/** A subjects listing's page. @throws StoreValidationError naming the field */
export function subjectsRequest(options: ListSubjectsOptions): { limit: number; offset: number } {
  const limit = requireInteger("limit", options.limit, 1, inputLimits.subjectsLimit, 50);
  return { limit, offset: requireOffset("offset", options.offset) };
}

/** An episode's payload, metadata and provenance as the JSON text a store keeps. */
export interface EpisodeTexts {
  payload: string;
  metadata: string;
  provenance: string;
}

/** JSON text of a payload/metadata/provenance object; a value JSON cannot hold is a validation error. */
function toJsonText(field: string, value: JsonObject): string {
  try {
    return JSON.stringify(value);
  } catch {
    // BigInt or a cycle: reject the input rather than fail half-way with a TypeError.
    throw new StoreValidationError(field, "a JSON-serialisable object");
  }
}

/**
 * An episode's objects as stored text; `field` prefixes the names an error gives
 * (`episodes[3].`). @throws StoreValidationError for a value JSON cannot hold
 */
export function episodeTexts(input: ValidEpisodeInput, field: string): EpisodeTexts {
  return {
    payload: toJsonText(`${field}payload`, input.payload),
    metadata: toJsonText(`${field}metadata`, input.metadata),
    provenance: toJsonText(`${field}provenance`, input.provenance),
  };
}

/**
 * The episode a store has just written. Parsed back from the stored text: the caller gets exactly
 * what a later read returns, and later changes to its own objects never alter it.
 */
export function writtenEpisode(
  input: ValidEpisodeInput,
  id: string,
  texts: EpisodeTexts,
  createdAt: string,
): Episode {
  return {
    id,
    subjectId: input.subjectId,
    source: input.source,
    type: input.type,
    payload: JSON.parse(texts.payload) as JsonObject,
    metadata: JSON.parse(texts.metadata) as JsonObject,
    provenance: JSON.parse(texts.provenance) as JsonObject,
    sessionId: input.sessionId,
    createdAt,
  };
}
