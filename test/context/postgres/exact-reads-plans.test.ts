import pg from "pg";
import { describe, expect, it } from "vitest";
import type { MemoryQuery } from "../../../src/context/context-store.js";
import { validateMemoryQuery } from "../../../src/context/memory-query.js";
import { memoryPageSql } from "../../../src/context/postgres/exact-reads.js";
import { PostgresStore } from "../../../src/context/postgres/postgres-store.js";
import { postgresSkipReason, usePostgres } from "./use-postgres.js";

const skip = postgresSkipReason("exact-reads-plans.test.ts") !== undefined;

/**
 * The Postgres store's exact reads are index lookups: on a subject of 5,000 memories beside another of 5,000 (analyzed,
 * so the planner sees a real table), each read's plan is an index scan, never a sequential scan
 * of memories or episodes. The plans printed here are the ones docs/postgres.md quotes.
 */
describe.skipIf(skip)("the Postgres store's exact reads' query plans", () => {
  const postgres = usePostgres(skip);

  it("reads every exact query through an index", async () => {
    const url = await postgres.database();
    const store = new PostgresStore({ url });
    // Two subjects written and compiled in turns, as parallel runs would: an index that only
    // orders by mseq would walk the other subject's rows too.
    for (let batch = 0; batch < 100; batch += 1) {
      const subjectId = batch % 2 === 0 ? "run" : "other";
      await store.createEpisodesBatch(
        Array.from({ length: 100 }, (_, index) => ({
          subjectId,
          source: "architect",
          type: batch % 4 < 2 ? "architectural_decision" : "implementation_note",
          payload: { content: `Decide ${batch}-${index}`, target: `modules/m${batch}/t${index}` },
        })),
      );
      await store.compileMemories(subjectId);
    }
    const [episode] = (await store.getTimeline("run", { limit: 1 })).episodes;
    await store.close();

    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      await client.query("ANALYZE");
      const explain = async (text: string, values: unknown[]) => {
        const { rows } = await client.query<{ "QUERY PLAN": string }>(`EXPLAIN ${text}`, values);
        return rows.map((row) => row["QUERY PLAN"]).join("\n");
      };
      const queries: Array<[string, MemoryQuery]> = [
        ["one target", { kind: "architectural_decision", targets: ["modules/m4/t7"] }],
        ["two targets, any status", { targets: ["modules/m4/t7", "modules/m5/t1"], status: "any" }],
        ["a target prefix", { kind: "architectural_decision", targetPrefix: "modules/m4/" }],
        ["a kind, from a cursor", { kind: "architectural_decision", cursor: "m1.2500" }],
        ["a kind, any status", { kind: "implementation_note", status: "any" }],
        ["a status alone", { status: "superseded" }],
        ["no target", { kind: "architectural_decision", untargeted: true }],
      ];
      const plans: string[] = [];
      for (const [label, query] of queries) {
        const { text, values } = memoryPageSql("", "run", validateMemoryQuery(query));
        const plan = await explain(text, values);
        plans.push(`-- ${label}: ${JSON.stringify(query)}\n${plan}`);
        expect(plan, label).toMatch(/Index (Only )?Scan|Bitmap Index Scan/);
        expect(plan, label).not.toMatch(/Seq Scan on memories/);
        // Either the subject is in the index condition, or (a subject that is a large share of
        // the table) the planner walks mseq backwards and stops at the page's limit: both are
        // bounded by the page, neither reads the subject's whole history.
        expect(plan, label).toMatch(
          /Index Cond: \(\(tenant_key = ''::text\) AND \(subject_id = 'run'::text\)|^Limit[^\n]*\n\s+->\s+Index Scan Backward using memories_pkey/,
        );
      }
      const byId = await explain(
        "SELECT * FROM episodes WHERE id = $1 AND tenant_key = $2 AND subject_id = $3 ORDER BY seq LIMIT 1",
        [episode?.id, "", "run"],
      );
      plans.push(`-- an episode by id\n${byId}`);
      expect(byId).toMatch(/episodes_by_id/);
      const memoryById = await explain(
        "SELECT * FROM memories m WHERE m.id = $1 AND m.tenant_key = $2 AND m.subject_id = $3",
        ["x", "", "run"],
      );
      plans.push(`-- a memory by id\n${memoryById}`);
      expect(memoryById).toMatch(/memories_id_key/);
      const timeline = await explain(
        "SELECT * FROM episodes WHERE tenant_key = $1 AND subject_id = $2 AND seq > $3 ORDER BY seq LIMIT $4",
        ["", "run", 4000, 101],
      );
      plans.push(`-- a timeline page after a cursor (episodes)\n${timeline}`);
      expect(timeline).toMatch(/Index Scan using episodes_pkey/);
      console.info(
        `Postgres exact-read plans (5,000 memories of the subject, 10,000 in all):\n\n${plans.join("\n\n")}`,
      );
    } finally {
      await client.end();
    }
  }, 120_000);
});
