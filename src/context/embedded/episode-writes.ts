import type { Episode } from "../context-store.js";
import { StoreValidationError } from "../errors/store-validation-error.js";
import { episodeTexts, writtenEpisode } from "../store-requests.js";
import type { ValidEpisodeInput } from "../validate-input.js";
import { type EpisodeRow, episodeFromRow } from "./rows.js";
import type { SqliteHandle } from "./sqlite-handle.js";

/** One episode to write: the tenant, the validated input, and the time it was accepted. */
export interface EpisodeWrite {
  tenantId: string | null;
  input: ValidEpisodeInput;
  createdAt: string;
}

/**
 * Inserts one episode, or returns the subject's first episode with the same idempotency key (then
 * nothing is written). A keyed write must run under the write lock (`BEGIN IMMEDIATE`), so no
 * other process can add the key between the read and the insert. `field` prefixes the names a
 * validation error gives (`episodes[3].`).
 * @throws StoreValidationError for a value JSON cannot hold (before anything is written)
 */
export function insertEpisode(
  handle: SqliteHandle,
  generateId: () => string,
  write: EpisodeWrite,
  field: string,
): Episode {
  const { tenantId, input, createdAt } = write;
  const texts = episodeTexts(input, field);
  if (input.idempotencyKey !== null) {
    const first = handle
      .statement<EpisodeRow>(
        `SELECT * FROM episodes WHERE (tenant_id IS NULL) = ? AND ifnull(tenant_id, '') = ?
           AND subject_id = ? AND idempotency_key = ?`,
      )
      .get(tenantId === null ? 1 : 0, tenantId ?? "", input.subjectId, input.idempotencyKey);
    if (first) return episodeFromRow(first);
  }
  const id = generateId();
  // created_at never goes backwards along seq: two processes take their clocks before the write
  // lock, so the later insert can carry the earlier time. One statement reads the subject's last
  // created_at and inserts (atomic under SQLite's write lock), as Postgres does with GREATEST.
  // ISO strings of one format compare as their times do.
  const stored = handle
    .statement<{ created_at: string }>(
      `INSERT INTO episodes (id, tenant_id, subject_id, source, type, payload, metadata, provenance, session_id, created_at, idempotency_key)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?,
         max(?, ifnull((SELECT created_at FROM episodes WHERE tenant_id IS ? AND subject_id = ?
                        ORDER BY seq DESC LIMIT 1), '')),
         ?)
       RETURNING created_at`,
    )
    .get(
      id,
      tenantId,
      input.subjectId,
      input.source,
      input.type,
      texts.payload,
      texts.metadata,
      texts.provenance,
      input.sessionId,
      createdAt,
      tenantId,
      input.subjectId,
      input.idempotencyKey,
    );
  return writtenEpisode(input, id, texts, stored?.created_at ?? createdAt);
}

/** What one write of a group came to: its episode, or the validation error that refused it. */
export type GroupOutcome = { episode: Episode } | { error: unknown };

/**
 * A group commit's episodes in one transaction, in order. A payload JSON cannot hold fails before
 * its INSERT: only that write is refused. Any database error fails the whole group (it may have
 * rolled the transaction back already: SQLITE_BUSY, SQLITE_FULL), so nothing is half-written.
 * @throws the database's error when the transaction (or its commit) failed: nothing was stored
 */
export function writeGroup(
  handle: SqliteHandle,
  generateId: () => string,
  group: readonly EpisodeWrite[],
): GroupOutcome[] {
  const writeAll = () =>
    group.map((item): GroupOutcome => {
      try {
        return { episode: insertEpisode(handle, generateId, item, "") };
      } catch (error) {
        if (error instanceof StoreValidationError) return { error };
        throw error;
      }
    });
  // Keyed creates read before they write: take the write lock first.
  return group.some((item) => item.input.idempotencyKey !== null)
    ? handle.immediate(writeAll)
    : handle.transaction(writeAll);
}

/**
 * A batch's episodes in one transaction, all with the same time; keyed items take the write lock
 * first. @throws StoreValidationError naming the item (nothing is written)
 */
export function writeBatch(
  handle: SqliteHandle,
  generateId: () => string,
  tenantId: string | null,
  inputs: readonly ValidEpisodeInput[],
  createdAt: string,
): Episode[] {
  const writeAll = () =>
    inputs.map((input, index) =>
      insertEpisode(handle, generateId, { tenantId, input, createdAt }, `episodes[${index}].`),
    );
  return inputs.some((input) => input.idempotencyKey !== null)
    ? handle.immediate(writeAll)
    : handle.transaction(writeAll);
}
