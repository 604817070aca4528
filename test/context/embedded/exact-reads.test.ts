import { join } from "node:path";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import type { MemoryQuery } from "../../../src/context/context-store.js";
import { EmbeddedStore } from "../../../src/context/embedded/embedded-store.js";
import { memoryPageSql } from "../../../src/context/embedded/exact-reads.js";
import { migrations } from "../../../src/context/embedded/schema.js";
import { validateMemoryQuery } from "../../../src/context/memory-query.js";
import { useTempDir } from "../../support/temp-dir.js";

/**
 * The embedded store's exact reads cost the same at 10 memories as at 50,000 because each is one
 * index lookup: their query plans are pinned here (a plan that walks the subject is a regression
 * no timed test would catch reliably). docs/store.md quotes them.
 */
describe("the embedded store's exact reads", () => {
  function planOf(db: Database.Database, sql: string, parameters: unknown[]): string {
    const rows = db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...parameters) as Array<{
      detail: string;
    }>;
    return rows.map((row) => row.detail).join(" | ");
  }

  function freshDatabase(): Database.Database {
    const db = new Database(":memory:");
    for (const migration of migrations) db.exec(migration);
    return db;
  }

  it.each<[string, MemoryQuery, RegExp]>([
    [
      "one target",
      { kind: "architectural_decision", targets: ["legacy-billing"] },
      /USING INDEX memories_by_target \(tenant_id=\? AND subject_id=\? AND target=\? AND status=\?\)/,
    ],
    [
      "several targets, any status",
      { kind: "claim", targets: ["a", "b"], status: "any" },
      /USING INDEX memories_by_target \(tenant_id=\? AND subject_id=\? AND target=\?\)/,
    ],
    [
      "a target prefix",
      { kind: "claim", targetPrefix: "modules/" },
      /USING INDEX memories_by_target \(tenant_id=\? AND subject_id=\? AND target>\? AND target<\?\)/,
    ],
    [
      "a kind, active",
      { kind: "architectural_decision", cursor: "m1.500" },
      /USING INDEX memories_by_kind \(tenant_id=\? AND subject_id=\? AND status=\? AND kind=\? AND seq<\?\)/,
    ],
    [
      "a kind, any status",
      { kind: "architectural_decision", status: "any" },
      /USING INDEX memories_by_kind_any \(tenant_id=\? AND subject_id=\? AND kind=\?\)/,
    ],
    [
      "memories without a target",
      { kind: "architectural_decision", untargeted: true },
      /USING INDEX memories_by_target \(tenant_id=\? AND subject_id=\? AND target=\? AND status=\?\)/,
    ],
    [
      "a status alone",
      {},
      /USING INDEX memories_by_status \(tenant_id=\? AND subject_id=\? AND status=\?\)/,
    ],
  ])("reads %s from its index", (_label, query, expected) => {
    const db = freshDatabase();
    const { sql, parameters } = memoryPageSql(null, "run", validateMemoryQuery(query));
    const plan = planOf(db, sql, parameters);
    expect(plan).toMatch(expected);
    expect(plan).not.toMatch(/SCAN memories/);
    db.close();
  });

  it("reads an episode and a memory by id with one probe", () => {
    const db = freshDatabase();
    expect(
      planOf(
        db,
        "SELECT * FROM episodes WHERE id = ? AND +tenant_id IS ? AND +subject_id = ? ORDER BY seq LIMIT 1",
        ["e", null, "run"],
      ),
    ).toBe("SEARCH episodes USING INDEX episodes_by_id (id=?)");
    expect(
      planOf(db, "SELECT * FROM memories WHERE id = ? AND tenant_id IS ? AND subject_id = ?", [
        "m",
        null,
        "run",
      ]),
    ).toMatch(/USING INDEX sqlite_autoindex_memories_1 \(id=\?\)/);
    db.close();
  });

  describe("on a file written before the exact reads (schema 2)", () => {
    const tempDir = useTempDir("shared-ctx-exact-");

    it("migrates it: the new indexes exist and a target left empty is filled from metadata", async () => {
      const path = join(tempDir(), "old.db");
      const old = new Database(path);
      for (const migration of migrations.slice(0, 2)) old.exec(migration);
      old.pragma("user_version = 2");
      old.close();
      const store = new EmbeddedStore({ path });
      await store.createEpisode({
        subjectId: "run",
        source: "architect",
        type: "architectural_decision",
        payload: { content: "Retire legacy-billing", target: "legacy-billing" },
      });
      await store.compileMemories("run");
      await store.close();
      // A row as an older writer might have left it: metadata.target set, the column not.
      const raw = new Database(path);
      expect(raw.pragma("user_version", { simple: true })).toBe(migrations.length);
      raw.prepare("UPDATE memories SET target = NULL").run();
      raw.pragma("user_version = 2");
      raw.exec(
        "DROP INDEX memories_by_target; DROP INDEX memories_by_kind_any; DROP INDEX episodes_by_id;",
      );
      raw.close();

      const reopened = new EmbeddedStore({ path });
      const page = await reopened.listMemories("run", { targets: ["legacy-billing"] });
      expect(page.memories.map((memory) => memory.content)).toEqual(["Retire legacy-billing"]);
      await reopened.close();
      const check = new Database(path);
      const indexes = check
        .prepare("SELECT name FROM sqlite_master WHERE type = 'index'")
        .all()
        .map((row) => (row as { name: string }).name);
      expect(indexes).toEqual(
        expect.arrayContaining(["memories_by_target", "memories_by_kind_any", "episodes_by_id"]),
      );
      check.close();
    });
  });
});
