import { z } from "zod";
import {
  boundedList,
  jsonObjectField,
  laxBool,
  laxInt,
  optionalNullableString,
  requiredString,
} from "./pydantic-fields.js";

/**
 * Request bodies and query strings of the `/v1` subset, with Statewave's field rules
 * (contract §5). Unknown fields are ignored, as pydantic's `extra="ignore"` does.
 */

/** `POST /v1/episodes` body, and one item of a batch (contract §5.1). */
export const createEpisodeBody = z.object({
  subject_id: requiredString({ min: 1, max: 256 }),
  source: requiredString({ min: 1, max: 256 }),
  type: requiredString({ min: 1, max: 128 }),
  payload: jsonObjectField({ required: true }),
  metadata: jsonObjectField({ required: false }),
  provenance: jsonObjectField({ required: false }),
  session_id: optionalNullableString({ max: 256 }),
  /**
   * Statewave v1.1's de-duplication key (contract §7, §12): the same key on the same subject
   * stores one episode and answers every later create with it. v0.7.1 ignores the field.
   */
  idempotency_key: optionalNullableString({ max: 256 }),
});
export type CreateEpisodeBody = z.output<typeof createEpisodeBody>;

/** `POST /v1/episodes/batch` body: 1..100 episodes (contract §5.2). */
export const createEpisodesBatchBody = z.object({
  episodes: boundedList(createEpisodeBody, { min: 1, max: 100 }),
});

/** `POST /v1/memories/compile` body; `async` is the wire name (contract §5.3). */
export const compileBody = z.object({
  subject_id: requiredString({ min: 1, max: 256 }),
  async: laxBool(false),
});

/** `POST /v1/context` body (contract §5.6). */
export const contextBody = z.object({
  subject_id: requiredString({ min: 1, max: 256 }),
  task: requiredString({ min: 1, max: 4000 }),
  max_tokens: laxInt({ ge: 1, le: 128_000 }, null),
  session_id: optionalNullableString({ max: 256 }),
});

/**
 * `GET /v1/memories/search` query (contract §5.5). `subject_id` may be empty, as in Statewave.
 * Statewave has no lower bound on `limit` and 500s on a negative one; we answer 422 instead (§14).
 */
export const searchQuery = z.object({
  subject_id: requiredString({ min: 0, max: 256 }),
  kind: optionalNullableString({ max: 128 }),
  q: optionalNullableString({ max: 4000 }),
  semantic: laxBool(false),
  limit: laxInt({ ge: 0, le: 100 }, 20),
});

/**
 * `GET /v1/timeline` query (contract §5.7). `limit`/`offset`/`newest_first` are Statewave >= 1.5's
 * (a real v0.7.1 ignores them and returns the oldest 100 episodes and memories); `cursor` is
 * shared-ctx's (docs/server.md).
 */
export const timelineQuery = z.object({
  subject_id: requiredString({ min: 0, max: 256 }),
  limit: laxInt({ ge: 1, le: 10_000 }, 100),
  offset: laxInt({ ge: 0, le: Number.MAX_SAFE_INTEGER }, 0),
  newest_first: laxBool(false),
  cursor: optionalNullableString({ max: 200 }),
});

/**
 * `GET /v1/memories` query (shared-ctx's exact read, docs/server.md "Exact reads"): `target` may
 * repeat (the route passes every value as a list); `kind` and `status` are checked by the store.
 */
export const memoriesQuery = z.object({
  subject_id: requiredString({ min: 1, max: 256 }),
  kind: optionalNullableString({ min: 1, max: 128 }),
  target: boundedList(requiredString({ min: 1, max: 4000 }), { min: 1, max: 100 }).optional(),
  target_prefix: optionalNullableString({ min: 1, max: 4000 }),
  untargeted: laxBool(false),
  status: optionalNullableString({ min: 1, max: 16 }),
  limit: laxInt({ ge: 1, le: 500 }, 100),
  cursor: optionalNullableString({ max: 200 }),
});

/** The query of `GET /v1/memories/{id}` and `GET /v1/episodes/{id}`: the subject is required. */
export const itemQuery = z.object({ subject_id: requiredString({ min: 1, max: 256 }) });

/** The path parameter of `GET /v1/memories/{id}` and `GET /v1/episodes/{id}`. */
export const itemIdParam = z.object({ id: requiredString({ min: 1, max: 256 }) });

/** `GET /v1/changes` query (docs/server.md "Exact reads"). */
export const changesQuery = z.object({
  subject_id: requiredString({ min: 1, max: 256 }),
  cursor: optionalNullableString({ max: 200 }),
  limit: laxInt({ ge: 1, le: 500 }, 100),
});

/** `GET /v1/subjects` query (contract §5.8). */
export const subjectsQuery = z.object({
  limit: laxInt({ ge: 1, le: 200 }, 50),
  offset: laxInt({ ge: 0, le: Number.MAX_SAFE_INTEGER }, 0),
});

/** The path parameter of `DELETE /v1/subjects/:subject_id` (contract §5.9). */
export const subjectIdParam = z.object({ subject_id: requiredString({ min: 1, max: 256 }) });

/** The path parameter of `GET /v1/memories/compile/:jobId`. */
export const jobIdParam = z.object({ job_id: requiredString({ min: 1, max: 10_000 }) });
