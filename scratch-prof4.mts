import Database from "better-sqlite3";
import { createHash } from "node:crypto";
import { EmbeddedStore } from "./src/context/embedded-store.js";
const store = new EmbeddedStore({ path: "/tmp/prof2.db" });
const db = new Database("/tmp/prof2.db");
const p = `s${createHash("sha256").update(`0\u0000s`).digest("hex").slice(0, 20)}x`;
const match = ["implement","auth","token","cache","login"].map(t => `"${p}${t}"`).join(" OR ");
const s1 = db.prepare(`SELECT rowid AS seq, bm25(memory_fts) AS rank FROM memory_fts WHERE memory_fts MATCH ? ORDER BY rowid DESC LIMIT 500`);
const s2 = db.prepare(`SELECT * FROM memories WHERE seq IN (SELECT value FROM json_each(?)) AND tenant_id IS ? AND subject_id = ? AND status = 'active' ORDER BY seq DESC`);
const s3 = db.prepare(`SELECT * FROM memories WHERE tenant_id IS ? AND subject_id = ? AND status = 'active' AND kind = 'architectural_decision' ORDER BY seq DESC LIMIT ?`);
const s4 = db.prepare(`SELECT * FROM memories WHERE tenant_id IS ? AND subject_id = ? AND status = 'active' ORDER BY seq DESC LIMIT ?`);
const s5 = db.prepare(`SELECT * FROM episodes WHERE tenant_id IS ? AND subject_id = ? AND compiled = 0 AND type NOT IN ('state_update', 'state_snapshot', 'run_event') ORDER BY seq DESC LIMIT ?`);
const raw = db.transaction(() => { const w = s1.all(match) as any[]; w.sort((a,b)=>a.rank-b.rank); s2.all(JSON.stringify(w.slice(0,50).map(r=>r.seq)), null, "s"); s3.all(null,"s",30); s4.all(null,"s",50); s5.all(null,"s",10); });
let a = 0, b = 0;
for (let i = 0; i < 300; i++) {
  let t = performance.now(); await store.getContext("s", "implement the auth token cache for login"); a += performance.now() - t;
  t = performance.now(); raw(); b += performance.now() - t;
}
console.log("store", (a/300).toFixed(2), "raw", (b/300).toFixed(2));
