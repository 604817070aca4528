import Database from "better-sqlite3";
import { createHash } from "node:crypto";
const db = new Database("/tmp/prof2.db");
const p = `s${createHash("sha256").update(`0\u0000s`).digest("hex").slice(0, 20)}x`;
const match = ["implement","auth","token","cache","login"].map(t => `"${p}${t}"`).join(" OR ");
const bench = (name: string, sql: string, ...args: unknown[]) => {
  const st = db.prepare(sql); st.all(...args);
  const t = performance.now(); let rows = 0; for (let i = 0; i < 50; i++) rows = st.all(...args).length;
  console.log(name, ((performance.now() - t) / 50).toFixed(2), "ms rows", rows);
};
bench("fts window", `SELECT rowid AS seq, bm25(memory_fts) AS rank FROM memory_fts WHERE memory_fts MATCH ? ORDER BY rowid DESC LIMIT 500`, match);
bench("fts window no rank", `SELECT rowid FROM memory_fts WHERE memory_fts MATCH ? ORDER BY rowid DESC LIMIT 500`, match);
bench("fts count", `SELECT count(*) FROM memory_fts WHERE memory_fts MATCH ?`, match);
bench("by ids", `SELECT * FROM memories WHERE seq IN (SELECT value FROM json_each(?)) AND tenant_id IS ? AND subject_id = ? AND status = 'active' ORDER BY seq DESC`, JSON.stringify(Array.from({length:50},(_,i)=>i*37+1)), null, "s");
bench("decisions", `SELECT * FROM memories WHERE tenant_id IS ? AND subject_id = ? AND status = 'active' AND kind = 'architectural_decision' ORDER BY seq DESC LIMIT ?`, null, "s", 30);
bench("newest", `SELECT * FROM memories WHERE tenant_id IS ? AND subject_id = ? AND status = 'active' ORDER BY seq DESC LIMIT ?`, null, "s", 50);
console.log(db.prepare("EXPLAIN QUERY PLAN SELECT * FROM memories WHERE seq IN (SELECT value FROM json_each(?)) AND tenant_id IS ? AND subject_id = ? AND status = 'active' ORDER BY seq DESC").all("[]", null, "s").map((r: any) => r.detail));
