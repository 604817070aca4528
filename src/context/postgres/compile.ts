import type { PoolClient } from "pg";
import {
  compileEpisode,
  compileProfileFacts,
  memoryFromDraft,
  type SupersedeCandidate,
  supersedes,
} from "../compile-memories.js";
import type { JsonObject, Memory } from "../context-store.js";
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

function candidateOf(id: string, metadata: JsonObject): SupersedeCandidate {
  const { source, escalationId } = metadata;
  return {
    id,
    source: typeof source === "string" ? source : undefined,
    escalationId: typeof escalationId === "string" ? escalationId : undefined,
  };
}

interface PendingInsert {
  memory: Memory;
  target: string | null;
  changeSeq: number;
}

/** Episodes read per page, so a 100k-episode subject is never loaded whole. */
const pageSize = 1000;

/**
 * Compiles a subject's uncompiled episodes inside the caller's transaction, with the same rules
 * and in the same order as the embedded store (`compile-memories.ts`): the result, supersedes and
 * `contradicts` lists are identical on the same episodes. Row-locks the subject's `compile_state`
 * first, so concurrent compiles of one subject (on any replica) run one after the other.
 */
export async function compileLocked(
  client: PoolClient,
  context: CompileContext,
): Promise<Memory[]> {
  const { tenant, subjectId } = context;
  // The upsert creates the row if needed and row-locks it until COMMIT.
  const state = await client.query<{ compiled_seq: string; memory_change: string }>(
    `INSERT INTO compile_state (tenant_key, subject_id) VALUES ($1, $2)
     ON CONFLICT (tenant_key, subject_id) DO UPDATE SET compiled_seq = compile_state.compiled_seq
     RETURNING compiled_seq, memory_change`,
    [tenant, subjectId],
  );
  let compiledSeq = Number(state.rows[0]?.compiled_seq ?? 0);
  let changeSeq = Number(state.rows[0]?.memory_change ?? 0);
  const startSeq = compiledSeq;
  const prefix = scopePrefix(tenant, subjectId);
  const created = new Map<string, Memory>();
  // Active memories per "kind\0target", read from the database once per key, then kept current
  // here: nobody else can change this subject's memories while we hold the lock.
  const sameTarget = new Map<string, ActiveSameTarget[]>();
  const superseded: Array<{ mseq: string; validTo: string; changeSeq: number }> = [];
  const inserts: PendingInsert[] = [];

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
        candidate: candidateOf(row.id, JSON.parse(row.metadata) as JsonObject),
        created: undefined,
      }));
      sameTarget.set(key, list);
    }
    return list;
  };

  for (;;) {
    const page = await client.query<EpisodeRow>({
      name: "shared-ctx-compile-page",
      text: `SELECT seq, id, type, source, payload, provenance, created_at FROM episodes
             WHERE tenant_key = $1 AND subject_id = $2 AND seq > $3 ORDER BY seq LIMIT ${pageSize}`,
      values: [tenant, subjectId, compiledSeq],
    });
    for (const row of page.rows) {
      compiledSeq = Number(row.seq);
      const draft = compileEpisode({
        type: row.type,
        source: row.source,
        payload: JSON.parse(row.payload) as JsonObject,
        provenance: JSON.parse(row.provenance) as JsonObject,
      });
      if (!draft) continue;
      const validFrom = row.created_at;
      const contradicted: string[] = [];
      const active = draft.target === null ? undefined : await activeFor(draft.kind, draft.target);
      if (active) {
        const stillActive: ActiveSameTarget[] = [];
        for (const old of active) {
          // Only a write made knowing the older memory replaces it (see `supersedes`).
          if (!supersedes(draft, old.candidate)) {
            contradicted.push(old.candidate.id);
            stillActive.push(old);
            continue;
          }
          changeSeq += 1;
          if (old.created) {
            old.created.status = "superseded";
            old.created.validTo = validFrom;
            old.created.updatedAt = context.now;
            const pending = inserts.find((item) => item.memory === old.created);
            if (pending) pending.changeSeq = changeSeq;
          } else if (old.mseq !== undefined) {
            superseded.push({ mseq: old.mseq, validTo: validFrom, changeSeq });
          }
        }
        active.length = 0;
        active.push(...stillActive);
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
      inserts.push({ memory, target: draft.target, changeSeq });
      created.set(memory.id, memory);
      active?.push({
        mseq: undefined,
        candidate: candidateOf(memory.id, memory.metadata),
        created: memory,
      });
      // A conversation's profile facts, beside its summary (Statewave's kinds): no target, so
      // they supersede nothing.
      for (const fact of compileProfileFacts({
        type: row.type,
        source: row.source,
        payload: JSON.parse(row.payload) as JsonObject,
      })) {
        changeSeq += 1;
        const factMemory = memoryFromDraft(fact, {
          id: context.generateId(),
          subjectId,
          episodeId: row.id,
          validFrom,
          now: context.now,
          contradicted: [],
        });
        inserts.push({ memory: factMemory, target: null, changeSeq });
        created.set(factMemory.id, factMemory);
      }
    }
    if (page.rows.length < pageSize) break;
  }
  if (compiledSeq === startSeq) return [];

  // bm25's statistics move with the set of active memories: what leaves it, what joins it.
  let activeDelta = 0;
  let tokenDelta = 0;
  const termDeltas = new Map<string, number>();
  const count = (indexed: IndexedTerms, sign: 1 | -1) => {
    activeDelta += sign;
    tokenDelta += sign * indexed.tokens;
    for (const term of indexed.terms) termDeltas.set(term, (termDeltas.get(term) ?? 0) + sign);
  };
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
  // Inserted in creation order in chunks, so mseq (the memories' order) follows it.
  for (let start = 0; start < inserts.length; start += 1000) {
    const chunk = inserts.slice(start, start + 1000);
    const chunkTerms = indexed.slice(start, start + 1000);
    await client.query(
      `INSERT INTO memories (id, tenant_key, subject_id, kind, target, content, summary, confidence,
         valid_from, valid_to, source_episode_ids, metadata, status, created_at, updated_at, change_seq, token_count, term_freqs, terms)
       SELECT v.id, $1, $2, v.kind, v.target, v.content, v.summary, v.confidence, v.valid_from, v.valid_to,
         v.source_episode_ids, v.metadata, v.status, $3, $3, v.change_seq, v.token_count, v.term_freqs,
         array_to_tsvector(string_to_array(v.terms, ' '))
       FROM unnest($4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::float8[], $10::text[],
         $11::text[], $12::text[], $13::text[], $14::text[], $15::bigint[], $16::text[], $17::integer[], $18::text[])
         WITH ORDINALITY AS v (id, kind, target, content, summary, confidence, valid_from, valid_to,
           source_episode_ids, metadata, status, change_seq, terms, token_count, term_freqs, position)
       ORDER BY v.position`,
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
  }
  const changedTerms = [...termDeltas].filter(([, delta]) => delta !== 0);
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
    [tenant, subjectId, compiledSeq, changeSeq, inserts.length, activeDelta, tokenDelta],
  );
  if (inserts.length > 0) {
    await client.query("SELECT pg_notify($1, $2)", [context.notifyChannel, context.changeKey]);
  }
  return [...created.values()];
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
