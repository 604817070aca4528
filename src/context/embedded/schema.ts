import type Database from "better-sqlite3";
import { StoreSchemaError } from "../errors/store-schema-error.js";

/**
 * Versioned schema of the embedded store. `PRAGMA user_version` holds the number of migrations
 * applied; each migration runs once, in order, in its own transaction. Add new migrations at the
 * end, never edit a shipped one.
 */
export const migrations: readonly string[] = [
  // 1: episodes, memories (+ FTS over active memory content), compile jobs, counters.
  `
  CREATE TABLE episodes (
    -- The rowid: the total order of episodes. Deliberately not AUTOINCREMENT (that writes one
    -- more page per commit); a new episode always gets max(seq) + 1, so within a subject that
    -- still exists the sequence only grows.
    seq INTEGER PRIMARY KEY,
    -- Random UUIDs: no UNIQUE index, whose random-page write per insert costs ingest speed.
    id TEXT NOT NULL,
    -- NULL = the default tenant; compared with IS so NULL matches NULL.
    tenant_id TEXT,
    subject_id TEXT NOT NULL,
    source TEXT NOT NULL,
    type TEXT NOT NULL,
    payload TEXT NOT NULL,
    metadata TEXT NOT NULL,
    provenance TEXT NOT NULL,
    session_id TEXT,
    created_at TEXT NOT NULL
  );
  CREATE INDEX episodes_by_subject ON episodes (tenant_id, subject_id, seq);

  -- How far compile got per subject: episodes with a higher seq are not compiled yet. One row
  -- per subject instead of a flag per episode keeps inserts to two b-trees.
  CREATE TABLE compile_marks (
    tenant_id TEXT,
    subject_id TEXT NOT NULL,
    compiled_seq INTEGER NOT NULL
  );
  CREATE INDEX compile_marks_by_subject ON compile_marks (tenant_id, subject_id);

  CREATE TABLE memories (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    id TEXT NOT NULL UNIQUE,
    tenant_id TEXT,
    subject_id TEXT NOT NULL,
    kind TEXT NOT NULL,
    target TEXT,
    content TEXT NOT NULL,
    summary TEXT NOT NULL,
    confidence REAL NOT NULL,
    valid_from TEXT NOT NULL,
    valid_to TEXT,
    source_episode_ids TEXT NOT NULL,
    metadata TEXT NOT NULL,
    status TEXT NOT NULL,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    -- Bumped from counters.memory_change on insert and on every update (supersede), so
    -- watchers in other processes can ask "what changed after N".
    change_seq INTEGER NOT NULL
  );
  CREATE INDEX memories_by_subject ON memories (tenant_id, subject_id, seq);
  CREATE INDEX memories_by_status ON memories (tenant_id, subject_id, status, seq);
  CREATE INDEX memories_by_kind ON memories (tenant_id, subject_id, status, kind, seq);
  CREATE INDEX memories_by_change ON memories (tenant_id, subject_id, change_seq);
  CREATE INDEX memories_active_target ON memories (tenant_id, subject_id, kind, target)
    WHERE status = 'active' AND target IS NOT NULL;

  -- Only active memories are indexed (superseded ones leave it), rowid = memories.seq.
  -- Each indexed word is prefixed with a token naming its (tenant, subject), so a query for a
  -- word only ever walks, counts (bm25's IDF) and ranks the rows of that one subject.
  CREATE VIRTUAL TABLE memory_fts USING fts5 (terms, tokenize = 'unicode61');

  CREATE TABLE compile_jobs (
    job_id TEXT PRIMARY KEY,
    tenant_id TEXT,
    subject_id TEXT NOT NULL,
    status TEXT NOT NULL,
    memories_created INTEGER,
    memory_ids TEXT,
    error TEXT,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
  );

  CREATE TABLE counters (name TEXT PRIMARY KEY, value INTEGER NOT NULL);
  INSERT INTO counters (name, value) VALUES ('memory_change', 0);
  `,
  // 2: idempotency keys (Statewave v1.1's idempotency_key): unique per (tenant, subject) among
  // keyed episodes. The tenant is indexed as (IS NULL, ifnull()) because NULLs are distinct in a
  // UNIQUE index, and the default tenant (NULL) must be as unique as a named one.
  `
  ALTER TABLE episodes ADD COLUMN idempotency_key TEXT;
  CREATE UNIQUE INDEX episodes_idempotency
    ON episodes (tenant_id IS NULL, ifnull(tenant_id, ''), subject_id, idempotency_key)
    WHERE idempotency_key IS NOT NULL;
  `,
  // 3: the exact reads (issue 36): memories by target (exact or prefix) and by kind in any status,
  // newest first, and an episode by id. The target column has been filled from metadata.target
  // since migration 1; the UPDATE fills any row that missed it, so every older file answers alike.
  `
  UPDATE memories SET target = json_extract(metadata, '$.target')
    WHERE target IS NULL AND json_valid(metadata) AND json_type(metadata, '$.target') = 'text';
  CREATE INDEX memories_by_target ON memories (tenant_id, subject_id, target, status, seq);
  CREATE INDEX memories_by_kind_any ON memories (tenant_id, subject_id, kind, seq);
  -- Not UNIQUE: ids are random UUIDs, and the index only has to find one.
  CREATE INDEX episodes_by_id ON episodes (id);
  `,
];

/** The schema version this code writes. */
export const schemaVersion = migrations.length;

/**
 * Brings the database up to `schemaVersion`. Safe when several processes open the same file at
 * once: the version is re-read inside an IMMEDIATE transaction, so only one of them migrates.
 * @throws StoreSchemaError when the file was written by a newer shared-ctx.
 */
export function migrate(db: Database.Database, path: string): void {
  const readVersion = () => Number(db.pragma("user_version", { simple: true }));
  const found = readVersion();
  if (found > schemaVersion) {
    throw new StoreSchemaError(path, found, schemaVersion);
  }
  if (found === schemaVersion) return;
  db.transaction(() => {
    for (let version = readVersion(); version < schemaVersion; version += 1) {
      // Always a migration: the loop stops at schemaVersion, which is migrations.length.
      db.exec(migrations[version] as string);
      db.pragma(`user_version = ${version + 1}`);
    }
  }).immediate();
}
