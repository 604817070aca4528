import type { PoolClient } from "pg";
import { StoreSchemaError } from "../errors/store-schema-error.js";

/**
 * Versioned schema of the Postgres store. `shared_ctx_schema.version` holds the number of
 * migrations applied; each runs once, in order, in one transaction under an advisory lock, so
 * several replicas starting at once migrate exactly once. Add new migrations at the end, never
 * edit a shipped one.
 *
 * Tenants: `tenant_key` is `''` for the default tenant and `'t:' || id` for a named one, so a
 * plain `=` (indexable, unlike `IS NOT DISTINCT FROM`) never lets one tenant see another's rows.
 */
export const migrations: readonly string[] = [
  // 1: subjects (the per-subject episode sequence), episodes, compile state, memories (+ full-text
  // terms of active memories), compile jobs.
  `
  -- One row per (tenant, subject). last_seq is the subject's episode sequence: an insert bumps it
  -- with an upsert, which row-locks it until the insert commits, so a subject's episodes commit
  -- in seq order on every replica and a reader never sees seq n+1 before n (a bigserial can).
  CREATE TABLE subjects (
    tenant_key text NOT NULL,
    subject_id text NOT NULL,
    last_seq bigint NOT NULL,
    episode_count bigint NOT NULL,
    PRIMARY KEY (tenant_key, subject_id)
  );

  CREATE TABLE episodes (
    tenant_key text NOT NULL,
    subject_id text NOT NULL,
    seq bigint NOT NULL,
    id text NOT NULL,
    source text NOT NULL,
    type text NOT NULL,
    -- JSON text exactly as written (jsonb would reorder keys and refuse \\u0000).
    payload text NOT NULL,
    metadata text NOT NULL,
    provenance text NOT NULL,
    session_id text,
    created_at text NOT NULL,
    PRIMARY KEY (tenant_key, subject_id, seq)
  );

  -- The compile lock and marks of one subject: compile row-locks it for its whole transaction,
  -- so two replicas compiling one subject never turn one episode into two memories. The memory
  -- change sequence lives here too: it only moves under that lock, so it commits in order.
  CREATE TABLE compile_state (
    tenant_key text NOT NULL,
    subject_id text NOT NULL,
    compiled_seq bigint NOT NULL DEFAULT 0,
    memory_change bigint NOT NULL DEFAULT 0,
    memory_count bigint NOT NULL DEFAULT 0,
    -- bm25's collection statistics over the subject's active memories: how many, how many words.
    active_count bigint NOT NULL DEFAULT 0,
    active_tokens bigint NOT NULL DEFAULT 0,
    PRIMARY KEY (tenant_key, subject_id)
  );

  -- bm25's document frequencies: in how many active memories of the subject each word occurs.
  -- Kept by compile (under the subject's compile lock), read by getContext for the task's words.
  CREATE TABLE term_stats (
    tenant_key text NOT NULL,
    subject_id text NOT NULL,
    term text NOT NULL,
    doc_count bigint NOT NULL,
    PRIMARY KEY (tenant_key, subject_id, term)
  );

  CREATE TABLE memories (
    mseq bigserial PRIMARY KEY,
    id text NOT NULL UNIQUE,
    tenant_key text NOT NULL,
    subject_id text NOT NULL,
    kind text NOT NULL,
    target text,
    content text NOT NULL,
    summary text NOT NULL,
    confidence double precision NOT NULL,
    valid_from text NOT NULL,
    valid_to text,
    source_episode_ids text NOT NULL,
    metadata text NOT NULL,
    status text NOT NULL,
    created_at text NOT NULL,
    updated_at text NOT NULL,
    change_seq bigint NOT NULL,
    -- The content's search words counted with repeats (bm25's document length), and how often
    -- each occurs (JSON {word: count}, bm25's term frequencies): getContext ranks the full-text
    -- window from these two small columns instead of reading every matching memory whole.
    token_count integer NOT NULL,
    term_freqs text NOT NULL,
    -- The content's search words, each prefixed with a token naming its (tenant, subject), so a
    -- GIN lookup only ever walks the rows of one subject.
    terms tsvector NOT NULL
  );
  CREATE INDEX memories_by_subject ON memories (tenant_key, subject_id, mseq);
  CREATE INDEX memories_by_status ON memories (tenant_key, subject_id, status, kind, mseq);
  CREATE INDEX memories_by_change ON memories (tenant_key, subject_id, change_seq);
  CREATE INDEX memories_active_target ON memories (tenant_key, subject_id, kind, target)
    WHERE status = 'active' AND target IS NOT NULL;
  CREATE INDEX memories_terms ON memories USING gin (terms) WHERE status = 'active';

  CREATE TABLE compile_jobs (
    job_id text PRIMARY KEY,
    tenant_key text NOT NULL,
    subject_id text NOT NULL,
    status text NOT NULL,
    memories_created integer,
    memory_ids text,
    error text,
    created_at text NOT NULL,
    updated_at text NOT NULL
  );
  `,
  // 2: idempotency keys (an episode written twice with one key is stored once) and the subject's
  // newest created_at, so the timeline's created_at never goes backwards along seq.
  `
  -- The created_at of the subject's newest episode: an insert takes GREATEST(now, this) under
  -- the same row lock that hands out its seq, so created_at follows seq on every replica.
  ALTER TABLE subjects ADD COLUMN last_created_at text NOT NULL DEFAULT '';
  -- Statewave v1.1's idempotency_key: unique per (tenant, subject) among keyed episodes.
  ALTER TABLE episodes ADD COLUMN idempotency_key text;
  CREATE UNIQUE INDEX episodes_idempotency ON episodes (tenant_key, subject_id, idempotency_key)
    WHERE idempotency_key IS NOT NULL;
  `,
  // 3: the exact reads (issue 36): memories by target (exact or prefix, in code point order) and
  // by status or kind alone, newest first, and an episode by id. No backfill: compile has written
  // the target column from the same draft as metadata.target since migration 1 (compile-memories.ts),
  // and a ::jsonb cast of every row could fail the migration on a "\u0000" escape jsonb refuses.
  `
  CREATE INDEX memories_by_target
    ON memories (tenant_key, subject_id, (target COLLATE "C"), status, mseq);
  CREATE INDEX memories_by_status_seq ON memories (tenant_key, subject_id, status, mseq);
  CREATE INDEX memories_by_kind ON memories (tenant_key, subject_id, kind, mseq);
  -- Not UNIQUE: ids are random UUIDs, and the index only has to find one.
  CREATE INDEX episodes_by_id ON episodes (id);
  `,
];

/** The schema version this code writes. */
export const schemaVersion = migrations.length;

/** Any 64-bit number, fixed: the advisory lock every migrating replica takes. */
const migrationLock = 7_114_031_601;

/**
 * Brings the database up to `schemaVersion`, once even when several replicas start together.
 * @throws StoreSchemaError when the database was written by a newer shared-ctx.
 */
export async function migrate(client: PoolClient, location: string): Promise<void> {
  await client.query("BEGIN");
  try {
    await client.query("SELECT pg_advisory_xact_lock($1)", [migrationLock]);
    await client.query(
      "CREATE TABLE IF NOT EXISTS shared_ctx_schema (version integer NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())",
    );
    const found = Number(
      (
        await client.query<{ version: number | null }>(
          "SELECT max(version) AS version FROM shared_ctx_schema",
        )
      ).rows[0]?.version ?? 0,
    );
    if (found > schemaVersion) throw new StoreSchemaError(location, found, schemaVersion);
    let version = found;
    for (const step of migrations.slice(found)) {
      await client.query(step);
      version += 1;
      await client.query("INSERT INTO shared_ctx_schema (version) VALUES ($1)", [version]);
    }
    await client.query("COMMIT");
  } catch (error) {
    await client.query("ROLLBACK").catch(() => undefined);
    throw error;
  }
}
