import type { PoolClient } from "pg";
import {
  compileEpisode,
  compileProfileFacts,
  memoryFromDraft,
  type SupersedeCandidate,
  supersedeCandidateOf,
  supersedes,
} from "../compile-memories.js";
import type { JsonObject, Memory } from "../context-store.js";
import type { SkippedEpisode } from "../errors/compile-episode-error.js";
import { storableDraft } from "../storable-text.js";
import {
  type EpisodeRow,
  type IndexedTerms,
  indexedTerms,
  type MemoryRow,
  memoryColumns,
  scopePrefix,
} from "./rows.js";

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
interface ActiveSameTarget {
  /** The row's mseq when it is already stored; undefined for one created by this compile. */
  mseq: string | undefined;
  candidate: SupersedeCandidate;
  /** Set for memories created by this compile, so a later supersede updates the returned object. */
  created: Memory | undefined;
}

interface PendingInsert {
  memory: Memory;
  target: string | null;
  changeSeq: number;
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

/** What a compile has yet to write: supersedes of stored memories, and new memories. */
interface Pending {
  superseded: Array<{ mseq: string; validTo: string; changeSeq: number }>;
  inserts: PendingInsert[];
}

/** bm25's collection statistics as a compile moves them: what leaves the active set, what joins it. */
interface StatisticsDelta {
  active: number;
  tokens: number;
  terms: Map<string, number>;
}

/**
 * Compiles a subject's uncompiled episodes inside the caller's transaction, with the same rules
 * and in the same order as the embedded store (`compile-memories.ts`): the result, supersedes and
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
    return await compilePass(client, context, start, false);
  } catch (error) {
    if (!isDataRefusal(error)) throw error;
    await client.query(`ROLLBACK TO SAVEPOINT ${compileSavepoint}`);
    return compilePass(client, context, start, true);
  }
}

/** Whether `error` came from the database or its connection (it carries a code), not from our code. */
function isDatabaseFailure(error: unknown): boolean {
  return (
    typeof error === "object" && error !== null && typeof Reflect.get(error, "code") === "string"
  );
}

/** One compile of the subject from `start`: all writes at the end, or (`careful`) episode by episode. */
async function compilePass(
  client: PoolClient,
  context: CompileContext,
  start: { compiledSeq: number; changeSeq: number },
  careful: boolean,
): Promise<{ memories: Memory[]; skipped: SkippedEpisode[] }> {
  const { tenant, subjectId } = context;
  let { compiledSeq, changeSeq } = start;
  const prefix = scopePrefix(tenant, subjectId);
  const created: Memory[] = [];
  const skipped: SkippedEpisode[] = [];
  // Active memories per "kind\0target", read from the database once per key, then kept current
  // here: nobody else can change this subject's memories while we hold the lock.
  const sameTarget = new Map<string, ActiveSameTarget[]>();
  /** The entry of each memory this pass created, to give it its mseq once written. */
  const entryOf = new Map<Memory, ActiveSameTarget>();
  const pending: Pending = { superseded: [], inserts: [] };
  const statistics: StatisticsDelta = { active: 0, tokens: 0, terms: new Map() };
  /** What the current episode changed, to take back when it is skipped. */
  let undo: Array<() => void> = [];

  const activeFor = async (kind: string, target: string): Promise<ActiveSameTarget[]> => {
    const key = `${kind}\u0000${target}`;
    let list = sameTarget.get(key);
    if (list === undefined) {
      // ORDER BY mseq: the contradiction list must come out the same on every compile.
      const rows = await client.query<{ mseq: string; id: string; metadata: string }>({
        name: "shared-ctx-compile-same-target",
        text: `SELECT mseq, id, metadata FROM memories WHERE tenant_key = $1 AND subject_id = $2
                 AND kind = $3 AND target = $4 AND status = 'active' ORDER BY mseq`,
        values: [tenant, subjectId, kind, target],
      });
      list = rows.rows.map((row) => ({
        mseq: row.mseq,
        candidate: supersedeCandidateOf(row.id, JSON.parse(row.metadata) as JsonObject),
        created: undefined,
      }));
      sameTarget.set(key, list);
    }
    return list;
  };

  /** One episode's memory and the supersedes it causes, into `pending` (nothing written yet). */
  const compileOne = async (row: EpisodeRow): Promise<void> => {
    const draft = storableDraft(
      compileEpisode({
        type: row.type,
        source: row.source,
        payload: JSON.parse(row.payload) as JsonObject,
        provenance: JSON.parse(row.provenance) as JsonObject,
        metadata: JSON.parse(row.metadata) as JsonObject,
      }),
    );
    if (!draft) return;
    const validFrom = row.created_at;
    const contradicted: string[] = [];
    const active = draft.target === null ? undefined : await activeFor(draft.kind, draft.target);
    const stillActive: ActiveSameTarget[] = [];
    if (active) {
      const kept = [...active];
      undo.push(() => {
        active.length = 0;
        active.push(...kept);
      });
    }
    for (const old of active ?? []) {
      // Only a write made knowing the older memory replaces it (see `supersedes`).
      if (!supersedes(draft, old.candidate)) {
        contradicted.push(old.candidate.id);
        stillActive.push(old);
        continue;
      }
      changeSeq += 1;
      const mine = old.created;
      if (mine) {
        const { status, validTo, updatedAt } = mine;
        undo.push(() => Object.assign(mine, { status, validTo, updatedAt }));
        mine.status = "superseded";
        mine.validTo = validFrom;
        mine.updatedAt = context.now;
        const insert = pending.inserts.find((item) => item.memory === mine);
        if (insert) {
          const previous = insert.changeSeq;
          undo.push(() => {
            insert.changeSeq = previous;
          });
          insert.changeSeq = changeSeq;
        }
      }
      // Stored already: before this compile, or by a careful pass's earlier episode.
      if (old.mseq !== undefined) {
        pending.superseded.push({ mseq: old.mseq, validTo: validFrom, changeSeq });
      }
    }
    changeSeq += 1;
    const memory = memoryFromDraft(draft, {
      id: context.generateId(),
      subjectId,
      episodeId: row.id,
      validFrom,
      now: context.now,
      contradicted,
    });
    pending.inserts.push({ memory, target: draft.target, changeSeq });
    if (active) {
      const entry: ActiveSameTarget = {
        mseq: undefined,
        candidate: supersedeCandidateOf(memory.id, memory.metadata),
        created: memory,
      };
      entryOf.set(memory, entry);
      active.length = 0;
      active.push(...stillActive, entry);
    }
    // A conversation's profile facts, beside its summary (Statewave's kinds): no target, so they
    // supersede nothing.
    for (const found of compileProfileFacts({
      type: row.type,
      source: row.source,
      payload: JSON.parse(row.payload) as JsonObject,
    })) {
      const fact = storableDraft(found);
      if (!fact) continue;
      changeSeq += 1;
      const factMemory = memoryFromDraft(fact, {
        id: context.generateId(),
        subjectId,
        episodeId: row.id,
        validFrom,
        now: context.now,
        contradicted: [],
      });
      pending.inserts.push({ memory: factMemory, target: null, changeSeq });
    }
  };

  /** Writes `pending`, then counts what it wrote; `pending` is empty after. */
  const flush = async (): Promise<void> => {
    const written = await writeMemories(client, context, prefix, pending);
    for (const [index, insert] of pending.inserts.entries()) {
      created.push(insert.memory);
      const entry = entryOf.get(insert.memory);
      if (entry) entry.mseq = written.mseqs[index];
    }
    statistics.active += written.statistics.active;
    statistics.tokens += written.statistics.tokens;
    for (const [term, delta] of written.statistics.terms) {
      statistics.terms.set(term, (statistics.terms.get(term) ?? 0) + delta);
    }
    pending.superseded = [];
    pending.inserts = [];
  };

  for (;;) {
    const page = await client.query<EpisodeRow>({
      name: "shared-ctx-compile-page",
      text: `SELECT seq, id, type, source, payload, metadata, provenance, created_at FROM episodes
             WHERE tenant_key = $1 AND subject_id = $2 AND seq > $3 ORDER BY seq LIMIT ${pageSize}`,
      values: [tenant, subjectId, compiledSeq],
    });
    for (const row of page.rows) {
      compiledSeq = Number(row.seq);
      const before = {
        changeSeq,
        inserts: pending.inserts.length,
        superseded: pending.superseded.length,
      };
      undo = [];
      try {
        if (careful) await client.query(`SAVEPOINT ${episodeSavepoint}`);
        await compileOne(row);
        if (careful) {
          await flush();
          await client.query(`RELEASE SAVEPOINT ${episodeSavepoint}`);
        }
      } catch (error) {
        // A lost connection or a timeout is nobody's episode: the compile fails. The fast path
        // cannot tell which episode the database refused: compileLocked starts a careful pass.
        if (isDatabaseFailure(error) && !(careful && isDataRefusal(error))) throw error;
        if (careful) await client.query(`ROLLBACK TO SAVEPOINT ${episodeSavepoint}`);
        // This episode is skipped for good (the mark moves past it): one episode never poisons
        // its subject.
        for (const step of undo.reverse()) step();
        changeSeq = before.changeSeq;
        pending.inserts.length = before.inserts;
        pending.superseded.length = before.superseded;
        skipped.push({ episodeId: row.id, type: row.type, reason: compileFailureReason(error) });
      }
    }
    if (page.rows.length < pageSize) break;
  }
  if (compiledSeq === start.compiledSeq) return { memories: [], skipped };
  if (!careful) await flush();
  const changedTerms = [...statistics.terms].filter(([, delta]) => delta !== 0);
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
      compiledSeq,
      changeSeq,
      created.length,
      statistics.active,
      statistics.tokens,
    ],
  );
  if (created.length > 0) {
    await client.query("SELECT pg_notify($1, $2)", [context.notifyChannel, context.changeKey]);
  }
  return { memories: created, skipped };
}

/**
 * Writes a compile's pending supersedes and memories; returns the new memories' mseqs (in
 * `pending.inserts` order) and how bm25's statistics moved.
 */
async function writeMemories(
  client: PoolClient,
  context: CompileContext,
  prefix: string,
  pending: Pending,
): Promise<{ mseqs: string[]; statistics: StatisticsDelta }> {
  const { tenant, subjectId } = context;
  const statistics: StatisticsDelta = { active: 0, tokens: 0, terms: new Map() };
  const count = (indexed: IndexedTerms, sign: 1 | -1) => {
    statistics.active += sign;
    statistics.tokens += sign * indexed.tokens;
    for (const term of indexed.terms) {
      statistics.terms.set(term, (statistics.terms.get(term) ?? 0) + sign);
    }
  };
  const { superseded, inserts } = pending;
  if (superseded.length > 0) {
    const left = await client.query<{ content: string }>(
      `UPDATE memories AS m SET status = 'superseded', valid_to = v.valid_to, updated_at = $1, change_seq = v.change_seq
       FROM unnest($2::bigint[], $3::text[], $4::bigint[]) AS v (mseq, valid_to, change_seq)
       WHERE m.mseq = v.mseq RETURNING m.content`,
      [
        context.now,
        superseded.map((item) => item.mseq),
        superseded.map((item) => item.validTo),
        superseded.map((item) => item.changeSeq),
      ],
    );
    for (const row of left.rows) count(indexedTerms(prefix, row.content), -1);
  }
  const indexed = inserts.map((item) => indexedTerms(prefix, item.memory.content));
  inserts.forEach((item, position) => {
    const terms = indexed[position];
    if (item.memory.status === "active" && terms) count(terms, 1);
  });
  const mseqs: string[] = [];
  // Inserted in creation order in chunks, so mseq (the memories' order) follows it.
  for (let start = 0; start < inserts.length; start += 1000) {
    const chunk = inserts.slice(start, start + 1000);
    const chunkTerms = indexed.slice(start, start + 1000);
    const result = await client.query<{ mseq: string }>(
      `INSERT INTO memories (id, tenant_key, subject_id, kind, target, content, summary, confidence,
         valid_from, valid_to, source_episode_ids, metadata, status, created_at, updated_at, change_seq, token_count, term_freqs, terms)
       SELECT v.id, $1, $2, v.kind, v.target, v.content, v.summary, v.confidence, v.valid_from, v.valid_to,
         v.source_episode_ids, v.metadata, v.status, $3, $3, v.change_seq, v.token_count, v.term_freqs,
         array_to_tsvector(string_to_array(v.terms, ' '))
       FROM unnest($4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::float8[], $10::text[],
         $11::text[], $12::text[], $13::text[], $14::text[], $15::bigint[], $16::text[], $17::integer[], $18::text[])
         WITH ORDINALITY AS v (id, kind, target, content, summary, confidence, valid_from, valid_to,
           source_episode_ids, metadata, status, change_seq, terms, token_count, term_freqs, position)
       ORDER BY v.position
       RETURNING mseq`,
      [
        tenant,
        subjectId,
        context.now,
        chunk.map((item) => item.memory.id),
        chunk.map((item) => item.memory.kind),
        chunk.map((item) => item.target),
        chunk.map((item) => item.memory.content),
        chunk.map((item) => item.memory.summary),
        chunk.map((item) => item.memory.confidence),
        chunk.map((item) => item.memory.validFrom),
        chunk.map((item) => item.memory.validTo),
        chunk.map((item) => JSON.stringify(item.memory.sourceEpisodeIds)),
        chunk.map((item) => JSON.stringify(item.memory.metadata)),
        chunk.map((item) => item.memory.status),
        chunk.map((item) => item.changeSeq),
        chunkTerms.map((item) => item.terms.map((term) => prefix + term).join(" ")),
        chunkTerms.map((item) => item.tokens),
        chunkTerms.map((item) => JSON.stringify(item.frequencies)),
      ],
    );
    // INSERT … SELECT … ORDER BY assigns mseqs in that order; sorted, they follow the chunk.
    mseqs.push(...result.rows.map((row) => row.mseq).sort((a, b) => Number(a) - Number(b)));
  }
  return { mseqs, statistics };
}

/** The memories with these ids, oldest first (a finished compile job's result). */
export async function memoriesByIds(
  client: Pick<PoolClient, "query">,
  tenant: string,
  ids: readonly string[],
): Promise<MemoryRow[]> {
  const result = await client.query<MemoryRow>(
    `SELECT ${memoryColumns} FROM memories m WHERE m.tenant_key = $1 AND m.id = ANY($2::text[]) ORDER BY m.mseq`,
    [tenant, ids],
  );
  return result.rows;
}
