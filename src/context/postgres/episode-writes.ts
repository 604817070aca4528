import type { Pool, PoolClient } from "pg";
import type { Episode } from "../context-store.js";
import { type EpisodeTexts, episodeTexts, writtenEpisode } from "../store-requests.js";
import type { ValidEpisodeInput } from "../validate-input.js";
import { PostgresConnection, queryRows } from "./connection.js";
import { changeKey, type EpisodeRow, episodeColumns, episodeFromRow } from "./rows.js";

/** An episode ready to insert: validated, serialised, with its id. */
export interface PreparedEpisode extends EpisodeTexts {
  input: ValidEpisodeInput;
  id: string;
}

/**
 * An episode ready to insert; `field` prefixes the names a validation error gives (`episodes[3].`).
 * @throws StoreValidationError for a value JSON cannot hold
 */
export function prepareEpisode(
  input: ValidEpisodeInput,
  id: string,
  field: string,
): PreparedEpisode {
  return { input, id, ...episodeTexts(input, field) };
}

/** The episode a prepared one became once stored at `createdAt`. */
export function episodeOf(prepared: PreparedEpisode, createdAt: string): Episode {
  return writtenEpisode(prepared.input, prepared.id, prepared, createdAt);
}

/** Where writes announce themselves: the NOTIFY channel every replica listens on. */
export interface NotifyTarget {
  channel: string;
  /** Called once per subject written, after the commit. */
  notify: (key: string) => void;
}

/**
 * Inserts one episode in one statement, one transaction: the upsert row-locks the subject's
 * sequence until the insert commits, so episodes of a subject commit in seq order on every
 * replica, and created_at (never below the subject's last one) follows seq. Returns the stored
 * created_at. @throws the driver's unique violation when another request stored its key first
 */
export async function insertEpisode(
  pool: Pool,
  tenant: string,
  prepared: PreparedEpisode,
  settings: { now: string; channel: string },
): Promise<string | undefined> {
  const { input } = prepared;
  const rows = await queryRows<{ created_at: string }>(pool, {
    name: "shared-ctx-insert-episode",
    text: `WITH s AS (
             INSERT INTO subjects (tenant_key, subject_id, last_seq, episode_count, last_created_at) VALUES ($1, $2, 1, 1, $10)
             ON CONFLICT (tenant_key, subject_id) DO UPDATE
               SET last_seq = subjects.last_seq + 1, episode_count = subjects.episode_count + 1,
                 last_created_at = GREATEST(subjects.last_created_at COLLATE "C", EXCLUDED.last_created_at)
             RETURNING last_seq, last_created_at)
           INSERT INTO episodes (tenant_key, subject_id, seq, id, source, type, payload, metadata, provenance, session_id, created_at, idempotency_key)
           SELECT $1, $2, s.last_seq, $3, $4, $5, $6, $7, $8, $9, s.last_created_at, $13 FROM s
           RETURNING created_at, pg_notify($11, $12)`,
    values: [
      tenant,
      input.subjectId,
      prepared.id,
      input.source,
      input.type,
      prepared.payload,
      prepared.metadata,
      prepared.provenance,
      input.sessionId,
      settings.now,
      settings.channel,
      changeKey(tenant, input.subjectId),
      input.idempotencyKey,
    ],
  });
  return rows[0]?.created_at;
}

/** The stored episodes with these (subject, idempotency key) pairs, in no particular order. */
export function episodesByKey(
  client: Pick<Pool, "query">,
  tenant: string,
  subjectIds: readonly string[],
  keys: readonly string[],
): Promise<Array<EpisodeRow & { idempotency_key: string }>> {
  return queryRows<EpisodeRow & { idempotency_key: string }>(client, {
    name: "shared-ctx-episodes-by-key",
    text: `SELECT ${episodeColumns}, idempotency_key FROM episodes
           WHERE tenant_key = $1 AND (subject_id, idempotency_key) IN (SELECT * FROM unnest($2::text[], $3::text[]))
             AND idempotency_key IS NOT NULL`,
    values: [tenant, subjectIds, keys],
  });
}

/** The JSON key of a keyed item's (subject, idempotency key); undefined for an unkeyed one. */
function keyOf(item: PreparedEpisode): string | undefined {
  return item.input.idempotencyKey === null
    ? undefined
    : JSON.stringify([item.input.subjectId, item.input.idempotencyKey]);
}

/** Which items of a batch to write: keyed items stored already, or repeated in it, are not. */
interface BatchPlan {
  /** Episodes already stored, by key. */
  stored: Map<string, Episode>;
  /** The batch's first item of each key it writes. */
  firstOfKey: Map<string, PreparedEpisode>;
  toWrite: PreparedEpisode[];
}

async function planBatch(
  pool: Pool,
  tenant: string,
  prepared: readonly PreparedEpisode[],
): Promise<BatchPlan> {
  const keyed = prepared.filter((item) => item.input.idempotencyKey !== null);
  const stored = new Map<string, Episode>();
  if (keyed.length > 0) {
    const rows = await episodesByKey(
      pool,
      tenant,
      keyed.map((item) => item.input.subjectId),
      keyed.map((item) => item.input.idempotencyKey ?? ""),
    );
    for (const row of rows) {
      stored.set(JSON.stringify([row.subject_id, row.idempotency_key]), episodeFromRow(row));
    }
  }
  const firstOfKey = new Map<string, PreparedEpisode>();
  const toWrite: PreparedEpisode[] = [];
  for (const item of prepared) {
    const key = keyOf(item);
    if (key !== undefined && (stored.has(key) || firstOfKey.has(key))) continue;
    if (key !== undefined) firstOfKey.set(key, item);
    toWrite.push(item);
  }
  return { stored, firstOfKey, toWrite };
}

/**
 * Allocates each subject's seqs for its items (the subjects in one sorted order, so two batches
 * never deadlock on each other), with one time per subject for the whole batch, never below
 * the subject's last one.
 */
async function allocateSeqs(
  client: PoolClient,
  tenant: string,
  bySubject: ReadonlyMap<string, PreparedEpisode[]>,
  now: string,
): Promise<{ seqs: Map<PreparedEpisode, number>; createdAt: Map<PreparedEpisode, string> }> {
  const seqs = new Map<PreparedEpisode, number>();
  const createdAt = new Map<PreparedEpisode, string>();
  for (const subjectId of [...bySubject.keys()].sort()) {
    const items = bySubject.get(subjectId) ?? [];
    const [row] = await queryRows<{ last_seq: string; last_created_at: string }>(client, {
      name: "shared-ctx-allocate-seqs",
      text: `INSERT INTO subjects (tenant_key, subject_id, last_seq, episode_count, last_created_at) VALUES ($1, $2, $3, $3, $4)
             ON CONFLICT (tenant_key, subject_id) DO UPDATE
               SET last_seq = subjects.last_seq + $3, episode_count = subjects.episode_count + $3,
                 last_created_at = GREATEST(subjects.last_created_at COLLATE "C", EXCLUDED.last_created_at)
             RETURNING last_seq, last_created_at`,
      values: [tenant, subjectId, items.length, now],
    });
    const last = Number(row?.last_seq ?? items.length);
    items.forEach((item, index) => {
      seqs.set(item, last - items.length + 1 + index);
      createdAt.set(item, row?.last_created_at ?? now);
    });
  }
  return { seqs, createdAt };
}

/** Inserts a batch's episodes in one statement, then notifies each subject's channel key. */
async function insertBatchRows(
  client: PoolClient,
  tenant: string,
  toWrite: readonly PreparedEpisode[],
  bySubject: ReadonlyMap<string, PreparedEpisode[]>,
  settings: { now: string; channel: string },
): Promise<Map<PreparedEpisode, string>> {
  const { seqs, createdAt } = await allocateSeqs(client, tenant, bySubject, settings.now);
  const column = <T>(value: (item: PreparedEpisode) => T) => toWrite.map(value);
  await client.query({
    name: "shared-ctx-insert-episodes",
    text: `INSERT INTO episodes (tenant_key, subject_id, seq, id, source, type, payload, metadata, provenance, session_id, created_at, idempotency_key)
           SELECT $1, v.subject_id, v.seq, v.id, v.source, v.type, v.payload, v.metadata, v.provenance, v.session_id, v.created_at, v.idempotency_key
           FROM unnest($2::text[], $3::bigint[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[], $10::text[], $11::text[], $12::text[])
             AS v (subject_id, seq, id, source, type, payload, metadata, provenance, session_id, created_at, idempotency_key)`,
    values: [
      tenant,
      column((item) => item.input.subjectId),
      column((item) => seqs.get(item) ?? 0),
      column((item) => item.id),
      column((item) => item.input.source),
      column((item) => item.input.type),
      column((item) => item.payload),
      column((item) => item.metadata),
      column((item) => item.provenance),
      column((item) => item.input.sessionId),
      column((item) => createdAt.get(item) ?? settings.now),
      column((item) => item.input.idempotencyKey),
    ],
  });
  for (const subjectId of [...bySubject.keys()].sort()) {
    await client.query("SELECT pg_notify($1, $2)", [
      settings.channel,
      changeKey(tenant, subjectId),
    ]);
  }
  return createdAt;
}

/**
 * Writes a batch: keyed items whose key is stored already, or repeated within this batch, are not
 * written; they answer with the episode stored (or written here) first. Counted as the batch's
 * episodes, de-duplicated ones included: a retried batch answers as the first did.
 * @throws the driver's unique violation when a concurrent request stored one of its keys first
 */
export async function writeBatch(
  pool: Pool,
  tenant: string,
  prepared: readonly PreparedEpisode[],
  settings: { now: () => string } & NotifyTarget,
): Promise<{ episodesCreated: number; episodes: Episode[] }> {
  const { stored, firstOfKey, toWrite } = await planBatch(pool, tenant, prepared);
  const bySubject = new Map<string, PreparedEpisode[]>();
  for (const item of toWrite) {
    const list = bySubject.get(item.input.subjectId) ?? [];
    list.push(item);
    bySubject.set(item.input.subjectId, list);
  }
  let createdAt = new Map<PreparedEpisode, string>();
  if (toWrite.length > 0) {
    const now = settings.now();
    createdAt = await PostgresConnection.transaction(pool, "BEGIN", (client) =>
      insertBatchRows(client, tenant, toWrite, bySubject, { now, channel: settings.channel }),
    );
    for (const subjectId of [...bySubject.keys()].sort()) {
      settings.notify(changeKey(tenant, subjectId));
    }
  }
  const written = new Map(
    toWrite.map((item) => [item, episodeOf(item, createdAt.get(item) ?? settings.now())]),
  );
  const episodes = prepared.map((item) => {
    const own = written.get(item);
    if (own) return own;
    const key = keyOf(item) ?? "";
    const first = firstOfKey.get(key);
    return stored.get(key) ?? (first ? written.get(first) : undefined) ?? own;
  });
  // Every item has an episode: its own, the stored one, or the batch's first with its key.
  const complete = episodes.filter((episode): episode is Episode => episode !== undefined);
  return { episodesCreated: complete.length, episodes: complete };
}
