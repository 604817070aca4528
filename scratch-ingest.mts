import Database from "better-sqlite3";
import { randomUUID } from "node:crypto";
import { rmSync } from "node:fs";
import { EmbeddedStore } from "./src/context/embedded-store.js";
for (const f of ["/tmp/ing.db", "/tmp/ing.db-wal", "/tmp/ing.db-shm"]) rmSync(f, { force: true });
const store = new EmbeddedStore({ path: "/tmp/ing.db" });
const db = new Database("/tmp/ing.db"); db.pragma("journal_mode = WAL"); db.pragma("synchronous = NORMAL"); db.pragma("busy_timeout = 10000");
const insert = db.prepare(`INSERT INTO episodes (id, tenant_id, subject_id, source, type, payload, metadata, provenance, session_id, created_at) VALUES (?, NULL, 'raw', 'agent-1', 'implementation_note', ?, '{}', '{}', NULL, ?)`);
let a = 0, b = 0;
for (let round = 0; round < 10; round++) {
  let t = performance.now();
  for (let i = 0; i < 500; i++) insert.run(randomUUID(), '{"content":"raw insert"}', new Date().toISOString());
  a += performance.now() - t;
  t = performance.now();
  for (let i = 0; i < 500; i++) await store.createEpisode({ subjectId: "s", source: "agent-1", type: "implementation_note", payload: { content: "use the shared token helper", index: i } });
  b += performance.now() - t;
}
console.log("raw us/op", (a / 5000 * 1000).toFixed(1), "store us/op", (b / 5000 * 1000).toFixed(1), "ratio", (a / b).toFixed(2));
