import Database from "better-sqlite3";
import { randomUUID } from "node:crypto";
import { rmSync } from "node:fs";
const variants: Record<string, string> = {
  current: `CREATE TABLE episodes (seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE, tenant_id TEXT, subject_id TEXT NOT NULL, payload TEXT NOT NULL, created_at TEXT NOT NULL, compiled INTEGER NOT NULL DEFAULT 0);
    CREATE INDEX a ON episodes (tenant_id, subject_id, seq); CREATE INDEX b ON episodes (tenant_id, subject_id, seq) WHERE compiled = 0;`,
  noAutoinc: `CREATE TABLE episodes (seq INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, tenant_id TEXT, subject_id TEXT NOT NULL, payload TEXT NOT NULL, created_at TEXT NOT NULL, compiled INTEGER NOT NULL DEFAULT 0);
    CREATE INDEX a ON episodes (tenant_id, subject_id, seq); CREATE INDEX b ON episodes (tenant_id, subject_id, seq) WHERE compiled = 0;`,
  noUnique: `CREATE TABLE episodes (seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL, tenant_id TEXT, subject_id TEXT NOT NULL, payload TEXT NOT NULL, created_at TEXT NOT NULL, compiled INTEGER NOT NULL DEFAULT 0);
    CREATE INDEX a ON episodes (tenant_id, subject_id, seq); CREATE INDEX b ON episodes (tenant_id, subject_id, seq) WHERE compiled = 0;`,
  noPartial: `CREATE TABLE episodes (seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE, tenant_id TEXT, subject_id TEXT NOT NULL, payload TEXT NOT NULL, created_at TEXT NOT NULL, compiled INTEGER NOT NULL DEFAULT 0);
    CREATE INDEX a ON episodes (tenant_id, subject_id, seq);`,
  lean: `CREATE TABLE episodes (seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL, tenant_id TEXT, subject_id TEXT NOT NULL, payload TEXT NOT NULL, created_at TEXT NOT NULL, compiled INTEGER NOT NULL DEFAULT 0);
    CREATE INDEX a ON episodes (tenant_id, subject_id, seq);`,
};
const dbs = Object.entries(variants).map(([name, ddl]) => {
  const path = `/tmp/schema-${name}.db`;
  for (const f of [path, path + "-wal", path + "-shm"]) rmSync(f, { force: true });
  const db = new Database(path); db.pragma("journal_mode = WAL"); db.pragma("synchronous = NORMAL"); db.exec(ddl);
  return { name, st: db.prepare("INSERT INTO episodes (id, tenant_id, subject_id, payload, created_at) VALUES (?, NULL, 's', '{\"content\":\"x\"}', ?)"), t: 0 };
});
for (let round = 0; round < 40; round++) for (const d of dbs) {
  const t = performance.now();
  for (let i = 0; i < 250; i++) d.st.run(randomUUID(), new Date().toISOString());
  d.t += performance.now() - t;
}
for (const d of dbs) console.log(d.name, (d.t / 10000 * 1000).toFixed(1), "us/insert");
