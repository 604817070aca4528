import { join } from "node:path";
import Database from "better-sqlite3";
import pg from "pg";
import { afterEach, describe, expect, it } from "vitest";
import type { ContextStore, CreateEpisodeInput } from "../../../src/context/context-store.js";
import { EmbeddedStore } from "../../../src/context/embedded/embedded-store.js";
import { CompileEpisodeError } from "../../../src/context/errors/compile-episode-error.js";
import { PostgresStore } from "../../../src/context/postgres/postgres-store.js";
import { useTempDir } from "../../support/temp-dir.js";
import { postgresSkipReason, usePostgres } from "./use-postgres.js";

const skip = postgresSkipReason("postgres-store-compile-quarantine.e2e.test.ts") !== undefined;

function decision(content: string, target: string, source = "architect"): CreateEpisodeInput {
  return { subjectId: "run", source, type: "architectural_decision", payload: { content, target } };
}

/**
 * Two poisoned episodes among supersedes: the refused ones are skipped, and the supersede chain
 * of the rest (A1 -> A2 -> A3, within one compile) comes out as if they had never been written.
 */
const episodes = [
  decision("A1", "auth"),
  decision("poison", "auth"),
  decision("A2", "auth"),
  decision("B1", "bus", "reviewer"),
  decision("poison", "bus", "reviewer"),
  decision("A3", "auth"),
];

/** What a compile left: each memory's content and status, oldest first. */
async function memoriesOf(store: ContextStore): Promise<string[]> {
  const { memories } = await store.getTimeline("run");
  return memories.map((memory) => `${memory.content}:${memory.status}`);
}

describe.skipIf(skip)("PostgresStore compile: an episode the database refuses", () => {
  const postgres = usePostgres(skip);
  const tempDir = useTempDir("shared-ctx-quarantine-");
  const opened: Array<{ close(): Promise<void> }> = [];
  afterEach(async () => {
    for (const item of opened.splice(0).reverse()) await item.close();
  });

  /** A Postgres store whose database refuses any memory with content "poison" (a trigger). */
  async function poisonedPostgres(): Promise<{ store: PostgresStore; admin: pg.Client }> {
    const url = await postgres.database();
    const store = new PostgresStore({ url });
    opened.push(store);
    await store.connect();
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    opened.push({ close: () => admin.end() });
    await admin.query(`CREATE FUNCTION refuse_poison() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN IF NEW.content = 'poison' THEN RAISE EXCEPTION 'secret driver text'; END IF; RETURN NEW; END $$`);
    await admin.query(`CREATE TRIGGER refuse_poison BEFORE INSERT ON memories FOR EACH ROW
      EXECUTE FUNCTION refuse_poison()`);
    return { store, admin };
  }

  /** The embedded store with the same refusal, for the same episodes. */
  function poisonedEmbedded(): EmbeddedStore {
    const path = join(tempDir(), "store.db");
    const store = new EmbeddedStore({ path });
    opened.push(store);
    const db = new Database(path);
    db.exec(`CREATE TRIGGER refuse_poison BEFORE INSERT ON memories WHEN NEW.content = 'poison'
      BEGIN SELECT RAISE(ABORT, 'secret driver text'); END;`);
    db.close();
    return store;
  }

  it("skips only the refused episodes, names them, and compiles the rest as the embedded store does", async () => {
    const { store, admin } = await poisonedPostgres();
    const written = (await store.createEpisodesBatch(episodes)).episodes;
    const error = await store.compileMemories("run").catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(CompileEpisodeError);
    const failure = error as CompileEpisodeError;
    expect(failure.skipped).toEqual(
      [written[1], written[4]].map((episode) => ({
        episodeId: episode?.id,
        type: "architectural_decision",
        reason: "the database refused its memory (SQLSTATE P0001)",
      })),
    );
    expect(failure.memoriesCreated).toBe(4);
    expect(failure.message).not.toContain("secret driver text");

    const expected = ["A1:superseded", "A2:superseded", "B1:active", "A3:active"];
    expect(await memoriesOf(store)).toEqual(expected);
    const embedded = poisonedEmbedded();
    await embedded.createEpisodesBatch(episodes);
    await expect(embedded.compileMemories("run")).rejects.toBeInstanceOf(CompileEpisodeError);
    expect(await memoriesOf(embedded)).toEqual(expected);

    // Skipped for good: the next compile has nothing to do, and does not fail again.
    await expect(store.compileMemories("run")).resolves.toMatchObject({ memoriesCreated: 0 });
    // bm25's statistics count the two active memories only.
    const stats = await admin.query<{ active_count: string; a1: string | null; a3: string | null }>(
      `SELECT c.active_count,
         (SELECT doc_count FROM term_stats WHERE term = 'a1') AS a1,
         (SELECT doc_count FROM term_stats WHERE term = 'a3') AS a3
       FROM compile_state c`,
    );
    // A1 joined and left within the one compile: no row of its own.
    expect(stats.rows).toEqual([{ active_count: "2", a1: null, a3: "1" }]);
    const bundle = await store.getContext("run", "A3 B1");
    expect(bundle.facts.map((memory) => memory.content).sort()).toEqual(["A3", "B1"]);
  });

  it("an async job ends failed naming the skipped episode, and the rest is compiled", async () => {
    const { store } = await poisonedPostgres();
    await store.createEpisodesBatch([decision("poison", "x"), decision("fine", "y")]);
    const job = await store.compileMemoriesWait("run", { timeoutMs: 10_000 });
    expect(job.status).toBe("failed");
    expect(job.error).toMatch(/^Could not compile episode .*\(SQLSTATE P0001\)/);
    expect(await memoriesOf(store)).toEqual(["fine:active"]);
  });
});
