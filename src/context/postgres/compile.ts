import type { PoolClient } from "pg";
import {
  type ActiveMemory,
  draftOfEpisode,
  type EpisodePlan,
  planEpisode,
  supersedeCandidateOf,
} from "../compile-plan.js";
import type { JsonObject, Memory } from "../context-store.js";
import type { SkippedEpisode } from "../errors/compile-episode-error.js";
import { type EpisodeRow, scopePrefix } from "./rows.js";
import {
  addStatistics,
  type Pending,
  type StatisticsDelta,
  writeMemories,
} from "./write-memories.js";

export { memoriesByIds } from "./write-memories.js";

/** What a compile needs besides the database: the clock's "now" and the id generator. */
export interface CompileContext {
  tenant: string;
  subjectId: string;
  now: string;
  generateId: () => string;
  notifyChannel: string;
  changeKey: string;
}

/** An active memory with the same kind and target, as the supersede rule sees it. */
interface ActiveSameTarget extends ActiveMemory {
  /** The row's mseq when it is already stored; undefined for one created by this compile. */
  mseq: string | undefined;
  /** Set for memories created by this compile, so a later supersede updates the returned object. */
  created: Memory | undefined;
}

/** Episodes read per page, so a 100k-episode subject is never loaded whole. */
const pageSize = 1000;

/** The savepoint a compile's writes run under, so a refused write can be taken back alone. */
const compileSavepoint = "shared_ctx_compile";
/** The savepoint of one episode's writes in a careful compile (see {@link compileLocked}). */
const episodeSavepoint = "shared_ctx_compile_episode";

/**
 * SQLSTATE classes that mean "the database refused this data" (a data exception, a constraint, a
 * limit, a trigger's RAISE): one episode's fault, so a careful compile skips it. Anything else (a
 * lost connection, a statement timeout, a deadlock) fails the compile, and nothing is skipped.
 */
function isDataRefusal(error: unknown): error is { code: string } {
  if (typeof error !== "object" || error === null || !("code" in error)) return false;
  const { code } = error;
  return typeof code === "string" && /^(22|23|54|P0)/.test(code);
}

/** Why one episode failed to compile, for the client: the class or SQLSTATE, never the driver's message. */
function compileFailureReason(error: unknown): string {
  if (isDataRefusal(error)) return `the database refused its memory (SQLSTATE ${error.code})`;
  const name = error instanceof Error ? error.name : typeof error;
  return `an internal error while compiling it (${name})`;
}

/** Whether `error` came from the database or its connection (it carries a code), not from our code. */
function isDatabaseFailure(error: unknown): boolean {
  return (
    typeof error === "object" && error !== null && typeof Reflect.get(error, "code") === "string"
  );
}

/**
 * Compiles a subject's uncompiled episodes inside the caller's transaction, with the same rules
 * and in the same order as the embedded store (`compile-plan.ts`): the result, supersedes and
 * `contradicts` lists are identical on the same episodes. Row-locks the subject's `compile_state`
 * first, so concurrent compiles of one subject (on any replica) run one after the other.
 *
 * Per-episode quarantine, as the embedded store's savepoints give it: an episode whose memory
 * cannot be built, or that the database refuses, is skipped for good (the compile mark moves past
 * it) and named in `skipped`; the other episodes compile. The fast path writes every memory at
 * once; when the database refuses that write, the pass is taken back and run again carefully,
 * each episode's writes under a savepoint of their own.
 */
export async function compileLocked(
  client: PoolClient,
  context: CompileContext,
): Promise<{ memories: Memory[]; skipped: SkippedEpisode[] }> {
  const { tenant, subjectId } = context;
  // The upsert creates the row if needed and row-locks it until COMMIT.
  const state = await client.query<{ compiled_seq: string; memory_change: string }>(
    `INSERT INTO compile_state (tenant_key, subject_id) VALUES ($1, $2)
     ON CONFLICT (tenant_key, subject_id) DO UPDATE SET compiled_seq = compile_state.compiled_seq
     RETURNING compiled_seq, memory_change`,
    [tenant, subjectId],
  );
  const start = {
    compiledSeq: Number(state.rows[0]?.compiled_seq ?? 0),
    changeSeq: Number(state.rows[0]?.memory_change ?? 0),
  };
  await client.query(`SAVEPOINT ${compileSavepoint}`);
  try {
    return await new CompilePass(client, context, start, false).run();
  } catch (error) {
    if (!isDataRefusal(error)) throw error;
    await client.query(`ROLLBACK TO SAVEPOINT ${compileSavepoint}`);
    return new CompilePass(client, context, start, true).run();
  }
}

/** One compile of the subject from `start`: all writes at the end, or (`careful`) episode by episode. */
class CompilePass {
  readonly #client: PoolClient;
  readonly #context: CompileContext;
  readonly #start: { compiledSeq: number; changeSeq: number };
  readonly #careful: boolean;
  readonly #prefix: string;
  #compiledSeq: number;
  #changeSeq: number;
  readonly #created: Memory[] = [];
  readonly #skipped: SkippedEpisode[] = [];
  /**
   * Active memories per "kind\0target", read from the database once per key, then kept current
   * here: nobody else can change this subject's memories while we hold the lock.
   */
  readonly #sameTarget = new Map<string, ActiveSameTarget[]>();
  /** The entry of each memory this pass created, to give it its mseq once written. */
  readonly #entryOf = new Map<Memory, ActiveSameTarget>();
  readonly #pending: Pending = { superseded: [], inserts: [] };
  readonly #statistics: StatisticsDelta = { active: 0, tokens: 0, terms: new Map() };
  /** What the current episode changed, to take back when it is skipped. */
  #undo: Array<() => void> = [];

  constructor(
    client: PoolClient,
    context: CompileContext,
    start: { compiledSeq: number; changeSeq: number },
    careful: boolean,
  ) {
    this.#client = client;
    this.#context = context;
    this.#start = start;
    this.#careful = careful;
    this.#prefix = scopePrefix(context.tenant, context.subjectId);
    this.#compiledSeq = start.compiledSeq;
    this.#changeSeq = start.changeSeq;
  }

  async run(): Promise<{ memories: Memory[]; skipped: SkippedEpisode[] }> {
    for (;;) {
      const page = await this.#client.query<EpisodeRow>({
        name: "shared-ctx-compile-page",
        text: `SELECT seq, id, type, source, payload, metadata, provenance, created_at FROM episodes
               WHERE tenant_key = $1 AND subject_id = $2 AND seq > $3 ORDER BY seq LIMIT ${pageSize}`,
        values: [this.#context.tenant, this.#context.subjectId, this.#compiledSeq],
      });
      for (const row of page.rows) await this.#compileRow(row);
      if (page.rows.length < pageSize) break;
    }
    if (this.#compiledSeq === this.#start.compiledSeq) {
      return { memories: [], skipped: this.#skipped };
    }
    if (!this.#careful) await this.#flush();
    await this.#finish();
    return { memories: this.#created, skipped: this.#skipped };
  }

  /** One episode: compiled into `pending` (and, careful, written), or skipped for good. */
  async #compileRow(row: EpisodeRow): Promise<void> {
    const client = this.#client;
    const pending = this.#pending;
    this.#compiledSeq = Number(row.seq);
    const before = {
      changeSeq: this.#changeSeq,
      inserts: pending.inserts.length,
      superseded: pending.superseded.length,
    };
    this.#undo = [];
    try {
      if (this.#careful) await client.query(`SAVEPOINT ${episodeSavepoint}`);
      await this.#compileOne(row);
      if (this.#careful) {
        await this.#flush();
        await client.query(`RELEASE SAVEPOINT ${episodeSavepoint}`);
      }
    } catch (error) {
      // A lost connection or a timeout is nobody's episode: the compile fails. The fast path
      // cannot tell which episode the database refused: compileLocked starts a careful pass.
      if (isDatabaseFailure(error) && !(this.#careful && isDataRefusal(error))) throw error;
      if (this.#careful) await client.query(`ROLLBACK TO SAVEPOINT ${episodeSavepoint}`);
      // This episode is skipped for good (the mark moves past it): one episode never poisons
      // its subject.
      for (const step of this.#undo.reverse()) step();
      this.#changeSeq = before.changeSeq;
      pending.inserts.length = before.inserts;
      pending.superseded.length = before.superseded;
      this.#skipped.push({
        episodeId: row.id,
        type: row.type,
        reason: compileFailureReason(error),
      });
    }
  }

  /** The active memories with this kind and target, read once per pass, kept current after. */
  async #activeFor(kind: string, target: string): Promise<ActiveSameTarget[]> {
    const key = `${kind}\u0000${target}`;
    let list = this.#sameTarget.get(key);
    if (list === undefined) {
      // ORDER BY mseq: the contradiction list must come out the same on every compile.
      const rows = await this.#client.query<{ mseq: string; id: string; metadata: string }>({
        name: "shared-ctx-compile-same-target",
        text: `SELECT mseq, id, metadata FROM memories WHERE tenant_key = $1 AND subject_id = $2
                 AND kind = $3 AND target = $4 AND status = 'active' ORDER BY mseq`,
        values: [this.#context.tenant, this.#context.subjectId, kind, target],
      });
      list = rows.rows.map((row) => ({
        mseq: row.mseq,
        candidate: supersedeCandidateOf(row.id, JSON.parse(row.metadata) as JsonObject),
        created: undefined,
      }));
      this.#sameTarget.set(key, list);
    }
    return list;
  }

  /** One episode's memory and the supersedes it causes, into `pending` (nothing written yet). */
  async #compileOne(row: EpisodeRow): Promise<void> {
    const drafted = draftOfEpisode(row);
    if (!drafted) return;
    const { kind, target } = drafted.draft;
    const active = target === null ? undefined : await this.#activeFor(kind, target);
    if (active) {
      const kept = [...active];
      this.#undo.push(() => {
        active.length = 0;
        active.push(...kept);
      });
    }
    const plan = planEpisode(row, drafted, active ?? [], this.#context);
    this.#applySteps(plan);
    if (active) {
      const entry: ActiveSameTarget = {
        mseq: undefined,
        candidate: supersedeCandidateOf(plan.memory.id, plan.memory.metadata),
        created: plan.memory,
      };
      this.#entryOf.set(plan.memory, entry);
      active.length = 0;
      active.push(...plan.stillActive, entry);
    }
  }

  /** The plan's steps into `pending`, each with the next change seq. */
  #applySteps(plan: EpisodePlan<ActiveSameTarget>): void {
    const pending = this.#pending;
    for (const step of plan.steps) {
      this.#changeSeq += 1;
      const changeSeq = this.#changeSeq;
      if (step.type === "insert") {
        pending.inserts.push({ memory: step.memory, target: step.target, changeSeq });
        continue;
      }
      const { old } = step;
      if (old.created) this.#supersedeCreated(old.created, plan.validFrom, changeSeq);
      // Stored already: before this compile, or by a careful pass's earlier episode.
      if (old.mseq !== undefined) {
        pending.superseded.push({ mseq: old.mseq, validTo: plan.validFrom, changeSeq });
      }
    }
  }

  /** A memory this pass created, superseded by a later episode of it (undone if that is skipped). */
  #supersedeCreated(mine: Memory, validFrom: string, changeSeq: number): void {
    const { status, validTo, updatedAt } = mine;
    this.#undo.push(() => Object.assign(mine, { status, validTo, updatedAt }));
    mine.status = "superseded";
    mine.validTo = validFrom;
    mine.updatedAt = this.#context.now;
    const insert = this.#pending.inserts.find((item) => item.memory === mine);
    if (insert) {
      const previous = insert.changeSeq;
      this.#undo.push(() => {
        insert.changeSeq = previous;
      });
      insert.changeSeq = changeSeq;
    }
  }

  /** Writes `pending`, then counts what it wrote; `pending` is empty after. */
  async #flush(): Promise<void> {
    const pending = this.#pending;
    const written = await writeMemories(this.#client, this.#context, this.#prefix, pending);
    for (const [index, insert] of pending.inserts.entries()) {
      this.#created.push(insert.memory);
      const entry = this.#entryOf.get(insert.memory);
      if (entry) entry.mseq = written.mseqs[index];
    }
    addStatistics(this.#statistics, written.statistics);
    pending.superseded = [];
    pending.inserts = [];
  }

  /** bm25's term statistics, the compile mark and counts, and the change notice. */
  async #finish(): Promise<void> {
    const client = this.#client;
    const { tenant, subjectId } = this.#context;
    const changedTerms = [...this.#statistics.terms].filter(([, delta]) => delta !== 0);
    if (changedTerms.length > 0) {
      await client.query(
        `INSERT INTO term_stats (tenant_key, subject_id, term, doc_count)
         SELECT $1, $2, v.term, v.delta FROM unnest($3::text[], $4::bigint[]) AS v (term, delta)
         ON CONFLICT (tenant_key, subject_id, term) DO UPDATE SET doc_count = term_stats.doc_count + EXCLUDED.doc_count`,
        [
          tenant,
          subjectId,
          changedTerms.map(([term]) => term),
          changedTerms.map(([, delta]) => delta),
        ],
      );
    }
    await client.query(
      `UPDATE compile_state SET compiled_seq = $3, memory_change = $4, memory_count = memory_count + $5,
         active_count = active_count + $6, active_tokens = active_tokens + $7
       WHERE tenant_key = $1 AND subject_id = $2`,
      [
        tenant,
        subjectId,
        this.#compiledSeq,
        this.#changeSeq,
        this.#created.length,
        this.#statistics.active,
        this.#statistics.tokens,
      ],
    );
    if (this.#created.length > 0) {
      await client.query("SELECT pg_notify($1, $2)", [
        this.#context.notifyChannel,
        this.#context.changeKey,
      ]);
    }
  }
}
