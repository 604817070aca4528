import { randomBytes, randomUUID } from "node:crypto";
import {
  cleanSummary,
  compileHeuristic,
  estimateTokens,
  extractPayloadText,
  HeuristicCompileError,
  type Json,
  jaccard,
  recencyScores,
  relevance,
} from "./statewave-heuristic.js";

/**
 * An emulation of a real Statewave v0.7.1 server for tests, answering as the recorded fixtures
 * (`../shared/fixtures/statewave-v0.7.1/`) and the contract (§3–§9) say, quirks included:
 * memories of Statewave's kinds only (the heuristic compiler: `episode_summary` plus regex
 * `profile_fact`s) with `metadata: {}`; supersede by word overlap, never by target; search newest
 * first; the timeline capped at the OLDEST 100 episodes and memories, ignoring `limit`/`offset`;
 * context from the 30 oldest episodes; `total` = page length; the bare-string 404 of an unknown
 * compile job; JSONB key order; a 500 for a non-JSON Content-Type or a NUL character; no tenant
 * header = every tenant. In memory, single process. Not a product: `shared-ctx serve` is.
 */

/** Options of {@link createStatewaveEmulator}. */
export interface StatewaveEmulatorOptions {
  /** Clock in ms since the epoch, for `created_at`. @default Date.now */
  now?: () => number;
  /** Episode and memory ids. @default crypto.randomUUID */
  generateId?: () => string;
  /** Compile job ids (8 hex digits in v0.7.1). @default 8 random hex digits */
  generateJobId?: () => string;
  /** Request ids (16 hex digits). @default random */
  generateRequestId?: () => string;
}

/** A running emulation: a fetch handler, and counters for tests. */
export interface StatewaveEmulator {
  /** Answers one request as Statewave v0.7.1 would. */
  fetch(request: Request): Promise<Response>;
  /** `typeof fetch` over {@link fetch}, for a client's `fetch` option (no socket needed). */
  readonly clientFetch: typeof fetch;
  /** Requests answered so far, by `METHOD /path` (no query). */
  readonly requests: Map<string, number>;
}

interface EpisodeRow {
  seq: number;
  tenant: string | null;
  id: string;
  subject_id: string;
  source: string;
  type: string;
  payload: { [key: string]: Json };
  metadata: { [key: string]: Json };
  provenance: { [key: string]: Json };
  session_id: string | null;
  created_at: string;
  time: number;
  compiled: boolean;
}

interface MemoryRow {
  seq: number;
  tenant: string | null;
  id: string;
  subject_id: string;
  kind: string;
  content: string;
  summary: string;
  confidence: number;
  valid_from: string;
  valid_to: string | null;
  source_episode_ids: string[];
  metadata: { [key: string]: Json };
  status: "active" | "superseded";
  created_at: string;
  updated_at: string;
  time: number;
}

interface JobRow {
  job_id: string;
  status: "pending" | "running" | "completed" | "failed";
  subject_id: string;
  memories_created?: number;
  memories?: ReturnType<typeof memoryWire>[];
  error?: string;
}

/** pydantic v2 ISO-8601: UTC `Z`, microseconds as 6 digits, left out when zero (contract §1). */
export function pydanticTimestamp(ms: number, micros = 0): string {
  const base = new Date(Math.floor(ms)).toISOString().slice(0, 19);
  const fraction = (Math.floor(ms) % 1000) * 1000 + micros;
  return fraction === 0 ? `${base}Z` : `${base}.${String(fraction).padStart(6, "0")}Z`;
}

/** JSONB re-orders object keys: shorter keys first, then bytewise (observed in the fixtures). */
function jsonb(value: Json): Json {
  if (Array.isArray(value)) return value.map(jsonb);
  if (typeof value !== "object" || value === null) return value;
  const keys = Object.keys(value).sort((a, b) => {
    const left = Buffer.byteLength(a);
    const right = Buffer.byteLength(b);
    if (left !== right) return left - right;
    return Buffer.compare(Buffer.from(a), Buffer.from(b));
  });
  const result: { [key: string]: Json } = {};
  for (const key of keys) result[key] = jsonb(value[key] ?? null);
  return result;
}

/** Postgres refuses U+0000 and lone surrogates in JSONB: v0.7.1 answers 500. */
function hasUnstorableText(value: Json): boolean {
  if (typeof value === "string") {
    // A lone surrogate: a high one not followed by a low one, or a low one not preceded by a high one.
    return (
      value.includes("\u0000") ||
      /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(value)
    );
  }
  if (Array.isArray(value)) return value.some(hasUnstorableText);
  if (typeof value !== "object" || value === null) return false;
  return Object.entries(value).some(
    ([key, inner]) => hasUnstorableText(key) || hasUnstorableText(inner),
  );
}

class Fail extends Error {
  constructor(
    readonly status: number,
    readonly body: unknown,
  ) {
    super(`emulated ${status}`);
  }
}

type Detail = { type: string; loc: (string | number)[]; msg: string; input: unknown; ctx?: object };

function validation(details: Detail[]): Fail {
  return new Fail(422, {
    error: { code: "validation_error", message: "Request validation failed", details },
  });
}

function isObject(value: unknown): value is { [key: string]: Json } {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** pydantic's checks for one string field. */
function checkString(
  body: { [key: string]: Json },
  name: string,
  max: number,
  details: Detail[],
  loc: (string | number)[],
  options: { optional?: boolean; nullable?: boolean; min?: number } = {},
): void {
  const value = body[name];
  const where = [...loc, name];
  if (value === undefined) {
    if (!options.optional)
      details.push({ type: "missing", loc: where, msg: "Field required", input: body });
    return;
  }
  if (value === null && options.nullable) return;
  if (typeof value !== "string") {
    details.push({
      type: "string_type",
      loc: where,
      msg: "Input should be a valid string",
      input: value,
    });
    return;
  }
  const length = Array.from(value).length;
  const min = options.min ?? 1;
  if (length < min) {
    details.push({
      type: "string_too_short",
      loc: where,
      msg: `String should have at least ${min} character${min === 1 ? "" : "s"}`,
      input: value,
      ctx: { min_length: min },
    });
  } else if (length > max) {
    details.push({
      type: "string_too_long",
      loc: where,
      msg: `String should have at most ${max} characters`,
      input: value,
      ctx: { max_length: max },
    });
  }
}

function checkObject(
  body: { [key: string]: Json },
  name: string,
  details: Detail[],
  loc: (string | number)[],
  optional: boolean,
): void {
  const value = body[name];
  if (value === undefined) {
    if (!optional)
      details.push({ type: "missing", loc: [...loc, name], msg: "Field required", input: body });
    return;
  }
  if (!isObject(value)) {
    details.push({
      type: "dict_type",
      loc: [...loc, name],
      msg: "Input should be a valid dictionary",
      input: value,
    });
  }
}

function episodeDetails(item: unknown, loc: (string | number)[]): Detail[] {
  if (!isObject(item)) {
    return [
      {
        type: "model_attributes_type",
        loc,
        msg: "Input should be a valid dictionary or object to extract fields from",
        input: item,
      },
    ];
  }
  const details: Detail[] = [];
  checkString(item, "subject_id", 256, details, loc);
  checkString(item, "source", 256, details, loc);
  checkString(item, "type", 128, details, loc);
  checkObject(item, "payload", details, loc, false);
  checkObject(item, "metadata", details, loc, true);
  checkObject(item, "provenance", details, loc, true);
  checkString(item, "session_id", 256, details, loc, { optional: true, nullable: true, min: 0 });
  return details;
}

function episodeWire(row: EpisodeRow) {
  return {
    id: row.id,
    subject_id: row.subject_id,
    source: row.source,
    type: row.type,
    payload: row.payload,
    metadata: row.metadata,
    provenance: row.provenance,
    session_id: row.session_id,
    created_at: row.created_at,
  };
}

function memoryWire(row: MemoryRow) {
  return {
    id: row.id,
    subject_id: row.subject_id,
    kind: row.kind,
    content: row.content,
    summary: row.summary,
    confidence: row.confidence,
    valid_from: row.valid_from,
    valid_to: row.valid_to,
    source_episode_ids: row.source_episode_ids,
    metadata: row.metadata,
    status: row.status,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

const kindScore: Readonly<Record<string, number>> = {
  profile_fact: 10,
  procedure: 8,
  episode_summary: 5,
};

/**
 * Creates an emulated Statewave v0.7.1 (see the module comment). Every call of `fetch` is
 * answered from memory; nothing persists.
 */
export function createStatewaveEmulator(options: StatewaveEmulatorOptions = {}): StatewaveEmulator {
  const now = options.now ?? Date.now;
  const generateId = options.generateId ?? randomUUID;
  const generateJobId = options.generateJobId ?? (() => randomBytes(4).toString("hex"));
  const generateRequestId = options.generateRequestId ?? (() => randomBytes(8).toString("hex"));
  const episodes: EpisodeRow[] = [];
  const memories: MemoryRow[] = [];
  const jobs = new Map<string, JobRow>();
  const requests = new Map<string, number>();
  let seq = 0;
  let lastTime = 0;

  /** A strictly increasing clock, so "transaction start" times are distinct and ordered. */
  function tick(): { time: number; stamp: string } {
    const time = Math.max(now(), lastTime + 0.001);
    lastTime = time;
    const ms = Math.floor(time);
    const micros = Math.round((time - ms) * 1000);
    return { time, stamp: pydanticTimestamp(ms, micros) };
  }

  /** Header present: that tenant only; absent: every tenant (contract §2). */
  const visible = (tenant: string | null | undefined) => (row: { tenant: string | null }) =>
    tenant === undefined || row.tenant === tenant;

  function insertEpisodes(
    items: { [key: string]: Json }[],
    tenant: string | undefined,
  ): EpisodeRow[] {
    for (const item of items) if (hasUnstorableText(item)) throw new Fail(500, internalError());
    const { time, stamp } = tick();
    return items.map((item) => {
      seq += 1;
      const row: EpisodeRow = {
        seq,
        tenant: tenant ?? null,
        id: generateId(),
        subject_id: item.subject_id as string,
        source: item.source as string,
        type: item.type as string,
        payload: jsonb(item.payload ?? {}) as { [key: string]: Json },
        metadata: jsonb(item.metadata ?? {}) as { [key: string]: Json },
        provenance: jsonb(item.provenance ?? {}) as { [key: string]: Json },
        session_id: typeof item.session_id === "string" ? item.session_id : null,
        created_at: stamp,
        time,
        compiled: false,
      };
      episodes.push(row);
      return row;
    });
  }

  function compile(subjectId: string, tenant: string | undefined): MemoryRow[] {
    const pending = episodes
      .filter((row) => row.subject_id === subjectId && !row.compiled && visible(tenant)(row))
      .sort((a, b) => a.time - b.time || a.seq - b.seq)
      .slice(0, 500);
    if (pending.length === 0) return [];
    const drafts = pending.map((row) => ({ row, drafts: compileHeuristic(row.payload) }));
    const { time, stamp } = tick();
    const created: MemoryRow[] = [];
    for (const { row, drafts: list } of drafts) {
      for (const draft of list) {
        seq += 1;
        created.push({
          seq,
          tenant: tenant ?? null,
          id: generateId(),
          subject_id: subjectId,
          kind: draft.kind,
          content: draft.content,
          summary: draft.summary,
          confidence: draft.confidence,
          valid_from: row.created_at,
          valid_to: null,
          source_episode_ids: [row.id],
          metadata: {},
          status: "active",
          created_at: stamp,
          updated_at: stamp,
          time,
        });
      }
      row.compiled = true;
    }
    memories.push(...created);
    resolveConflicts(subjectId);
    return created;
  }

  /** After every compile, across tenants (a v0.7.1 leak, contract §2, §8). */
  function resolveConflicts(subjectId: string): void {
    const active = memories
      .filter((row) => row.subject_id === subjectId && row.status === "active")
      .sort((a, b) => a.time - b.time || a.seq - b.seq)
      .slice(0, 500);
    const byKind = new Map<string, MemoryRow[]>();
    for (const row of active) byKind.set(row.kind, [...(byKind.get(row.kind) ?? []), row]);
    for (const [kind, rows] of byKind) {
      const threshold = kind === "profile_fact" ? 0.6 : 0.8;
      rows.forEach((older, index) => {
        const newer = rows
          .slice(index + 1)
          .find(
            (candidate) =>
              candidate.time > older.time && jaccard(older.content, candidate.content) >= threshold,
          );
        if (newer === undefined) return;
        older.status = "superseded";
        older.valid_to = newer.valid_from;
      });
    }
  }

  function newestActive(
    subjectId: string,
    tenant: string | undefined,
    kind: string,
    limit: number,
  ): MemoryRow[] {
    return memories
      .filter((row) => row.subject_id === subjectId && row.status === "active" && row.kind === kind)
      .filter(visible(tenant))
      .sort((a, b) => b.time - a.time || a.seq - b.seq)
      .slice(0, limit);
  }

  function context(body: { [key: string]: Json }, tenant: string | undefined) {
    const subjectId = body.subject_id as string;
    const task = body.task as string;
    const budget = typeof body.max_tokens === "number" ? body.max_tokens : 4000;
    const facts = newestActive(subjectId, tenant, "profile_fact", 50);
    const procedures = newestActive(subjectId, tenant, "procedure", 20);
    const summaries = newestActive(subjectId, tenant, "episode_summary", 30);
    const candidates = [...facts, ...procedures, ...summaries];
    const covered = new Set(summaries.flatMap((row) => row.source_episode_ids));
    // The 30 OLDEST episodes (v0.7.1; v1.0 made it newest-first).
    const oldest = episodes
      .filter((row) => row.subject_id === subjectId && visible(tenant)(row))
      .sort((a, b) => a.time - b.time || a.seq - b.seq)
      .slice(0, 30)
      .filter((row) => !covered.has(row.id));
    const memoryRecency = recencyScores(candidates.map((row) => row.time));
    const episodeRecency = recencyScores(oldest.map((row) => row.time));
    type Item = { score: number; line: string; memory?: MemoryRow; episode?: EpisodeRow };
    const items: Item[] = [
      ...candidates.map((row, index) => ({
        score:
          (kindScore[row.kind] ?? 1) +
          (memoryRecency[index] ?? 0) +
          relevance(task, row.content) +
          (row.valid_to === null ? 3 : -4),
        line: `- ${row.kind === "episode_summary" ? cleanSummary(row.content) : row.content}`,
        memory: row,
      })),
      ...oldest.map((row, index) => {
        let text = "";
        try {
          text = extractPayloadText(row.payload);
        } catch (error) {
          if (error instanceof HeuristicCompileError) throw new Fail(500, internalError());
          throw error;
        }
        let score = 3 + (episodeRecency[index] ?? 0) + relevance(task, text);
        if (["assistant", "agent", "tool", "system"].includes(row.source)) score += 2;
        else if (["action", "tool_call", "resolution_attempt"].includes(row.type)) score += 2;
        if (text.length < 20) score -= 2;
        const shown = text ? Array.from(text).slice(0, 150).join("") : "(no text content)";
        return { score, line: `- [${row.source}/${row.type}] ${shown}`, episode: row };
      }),
    ];
    const ranked = items
      .map((item, index) => ({ item, index }))
      .sort((a, b) => b.item.score - a.item.score || a.index - b.index)
      .map(({ item }) => item);
    const header = `## Task\n${task}\n`;
    let used = estimateTokens(header);
    const included: Item[] = [];
    for (const item of ranked) {
      const cost = estimateTokens(item.line);
      if (used + cost + 10 > budget) continue;
      used += cost;
      included.push(item);
    }
    const section = (title: string, lines: string[]) =>
      lines.length === 0 ? [] : [title, ...lines, ""];
    const of = (kind: string) => included.filter((item) => item.memory?.kind === kind);
    const includedEpisodes = included.filter((item) => item.episode !== undefined);
    const parts = [
      header,
      ...section(
        "## About this user",
        of("profile_fact").map((item) => item.line),
      ),
      ...section(
        "## Procedures",
        of("procedure").map((item) => item.line),
      ),
      ...section(
        "## Recent history",
        of("episode_summary").map((item) => item.line),
      ),
      ...section(
        "## Recent interactions",
        includedEpisodes.map((item) => item.line),
      ),
    ];
    const assembled = parts.join("\n");
    const memoryRows = (kind: string) =>
      of(kind).flatMap((item) => (item.memory ? [item.memory] : []));
    return {
      subject_id: subjectId,
      task,
      facts: [...memoryRows("profile_fact"), ...memoryRows("episode_summary")].map(memoryWire),
      episodes: includedEpisodes.flatMap((item) =>
        item.episode ? [episodeWire(item.episode)] : [],
      ),
      procedures: memoryRows("procedure").map(memoryWire),
      provenance: {
        fact_ids: memoryRows("profile_fact").map((row) => row.id),
        summary_ids: memoryRows("episode_summary").map((row) => row.id),
        procedure_ids: memoryRows("procedure").map((row) => row.id),
        episode_ids: includedEpisodes.flatMap((item) => (item.episode ? [item.episode.id] : [])),
      },
      assembled_context: assembled,
      token_estimate: estimateTokens(assembled),
      sessions: [],
    };
  }

  function intQuery(
    url: URL,
    name: string,
    fallback: number,
    bounds: { min?: number; max: number },
  ): number {
    const raw = url.searchParams.get(name);
    if (raw === null) return fallback;
    const value = Number(raw);
    if (!Number.isInteger(value)) {
      throw validation([
        {
          type: "int_parsing",
          loc: ["query", name],
          msg: "Input should be a valid integer, unable to parse string as an integer",
          input: raw,
        },
      ]);
    }
    if (value > bounds.max) {
      throw validation([
        {
          type: "less_than_equal",
          loc: ["query", name],
          msg: `Input should be less than or equal to ${bounds.max}`,
          input: raw,
          ctx: { le: bounds.max },
        },
      ]);
    }
    if (bounds.min !== undefined && value < bounds.min) {
      throw validation([
        {
          type: "greater_than_equal",
          loc: ["query", name],
          msg: `Input should be greater than or equal to ${bounds.min}`,
          input: raw,
          ctx: { ge: bounds.min },
        },
      ]);
    }
    return value;
  }

  function requiredSubject(url: URL): string {
    const subjectId = url.searchParams.get("subject_id");
    if (subjectId === null) {
      throw validation([
        { type: "missing", loc: ["query", "subject_id"], msg: "Field required", input: null },
      ]);
    }
    return subjectId;
  }

  async function readBody(request: Request): Promise<{ [key: string]: Json }> {
    const type = request.headers.get("content-type") ?? "";
    // v0.7.1 validates the raw bytes of a non-JSON body and then fails to encode its own error.
    if (!type.toLowerCase().startsWith("application/json")) throw new Fail(500, internalError());
    const text = await request.text();
    if (text === "")
      throw validation([{ type: "missing", loc: ["body"], msg: "Field required", input: null }]);
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      throw validation([
        {
          type: "json_invalid",
          loc: ["body", 0],
          msg: "JSON decode error",
          input: {},
          ctx: { error: "Expecting value" },
        },
      ]);
    }
    if (!isObject(body)) {
      throw validation([
        {
          type: "model_attributes_type",
          loc: ["body"],
          msg: "Input should be a valid dictionary or object to extract fields from",
          input: body,
        },
      ]);
    }
    return body;
  }

  async function route(
    request: Request,
    url: URL,
    tenant: string | undefined,
  ): Promise<{ status: number; body: unknown }> {
    const path = url.pathname;
    const method = request.method;
    if ((path === "/healthz" || path === "/health") && method === "GET")
      return { status: 200, body: { status: "ok" } };
    if (path === "/v1/episodes" && method === "POST") {
      const body = await readBody(request);
      const details = episodeDetails(body, ["body"]);
      if (details.length > 0) throw validation(details);
      const [row] = insertEpisodes([body], tenant);
      return { status: 201, body: row ? episodeWire(row) : null };
    }
    if (path === "/v1/episodes/batch" && method === "POST") {
      const body = await readBody(request);
      const items = body.episodes;
      if (!Array.isArray(items)) {
        throw validation([
          {
            type: items === undefined ? "missing" : "list_type",
            loc: ["body", "episodes"],
            msg: items === undefined ? "Field required" : "Input should be a valid list",
            input: items === undefined ? body : items,
          },
        ]);
      }
      if (items.length === 0 || items.length > 100) {
        const tooLong = items.length > 100;
        throw validation([
          {
            type: tooLong ? "too_long" : "too_short",
            loc: ["body", "episodes"],
            msg: tooLong
              ? `List should have at most 100 items after validation, not ${items.length}`
              : "List should have at least 1 item after validation, not 0",
            input: items,
            ctx: tooLong
              ? { field_type: "List", max_length: 100, actual_length: items.length }
              : { field_type: "List", min_length: 1, actual_length: 0 },
          },
        ]);
      }
      const details = items.flatMap((item, index) =>
        episodeDetails(item, ["body", "episodes", index]),
      );
      if (details.length > 0) throw validation(details);
      const rows = insertEpisodes(items as { [key: string]: Json }[], tenant);
      return {
        status: 201,
        body: { episodes_created: rows.length, episodes: rows.map(episodeWire) },
      };
    }
    if (path === "/v1/memories/compile" && method === "POST") {
      const body = await readBody(request);
      const details: Detail[] = [];
      checkString(body, "subject_id", 256, details, ["body"]);
      if (details.length > 0) throw validation(details);
      const subjectId = body.subject_id as string;
      const asynchronous =
        body.async === true || body.async === "true" || body.async === "yes" || body.async === 1;
      if (asynchronous) {
        const job: JobRow = { job_id: generateJobId(), status: "pending", subject_id: subjectId };
        jobs.set(job.job_id, job);
        const answer = { job_id: job.job_id, status: job.status, subject_id: subjectId };
        // Runs after the 202 is answered, as v0.7.1's asyncio task does.
        setTimeout(() => {
          try {
            const created = compile(subjectId, tenant);
            Object.assign(job, {
              status: "completed",
              memories_created: created.length,
              memories: created.map(memoryWire),
            });
          } catch (error) {
            Object.assign(job, { status: "failed", error: String(error) });
          }
        }, 0);
        return { status: 202, body: answer };
      }
      let created: MemoryRow[];
      try {
        created = compile(subjectId, tenant);
      } catch (error) {
        if (error instanceof HeuristicCompileError) throw new Fail(500, internalError());
        throw error;
      }
      return {
        status: 200,
        body: {
          subject_id: subjectId,
          memories_created: created.length,
          memories: created.map(memoryWire),
        },
      };
    }
    const jobMatch = /^\/v1\/memories\/compile\/([^/]+)$/.exec(path);
    if (jobMatch && method === "GET") {
      const job = jobs.get(decodeURIComponent(jobMatch[1] ?? ""));
      // Not the envelope: a bare string (contract §3, fixture 15).
      if (job === undefined) throw new Fail(404, { error: "Job not found or expired" });
      return { status: 200, body: { ...job } };
    }
    if (path === "/v1/memories/search" && method === "GET") {
      const subjectId = requiredSubject(url);
      const limit = intQuery(url, "limit", 20, { max: 100 });
      if (limit < 0) throw new Fail(500, internalError());
      const kind = url.searchParams.get("kind");
      const q = url.searchParams.get("q");
      const found = memories
        .filter(
          (row) => row.subject_id === subjectId && row.status === "active" && visible(tenant)(row),
        )
        .filter((row) => kind === null || row.kind === kind)
        .filter((row) => !q || row.content.toLowerCase().includes(q.toLowerCase()))
        .sort((a, b) => b.time - a.time || a.seq - b.seq)
        .slice(0, limit);
      return { status: 200, body: { memories: found.map(memoryWire) } };
    }
    if (path === "/v1/context" && method === "POST") {
      const body = await readBody(request);
      const details: Detail[] = [];
      checkString(body, "subject_id", 256, details, ["body"]);
      checkString(body, "task", 4000, details, ["body"]);
      if (details.length > 0) throw validation(details);
      return { status: 200, body: context(body, tenant) };
    }
    if (path === "/v1/timeline" && method === "GET") {
      const subjectId = requiredSubject(url);
      // limit/offset are not parameters of this route in v0.7.1: the oldest 100, always.
      const ordered = <T extends { time: number; seq: number }>(rows: T[]) =>
        rows.sort((a, b) => a.time - b.time || a.seq - b.seq).slice(0, 100);
      return {
        status: 200,
        body: {
          subject_id: subjectId,
          episodes: ordered(
            episodes.filter((row) => row.subject_id === subjectId && visible(tenant)(row)),
          ).map(episodeWire),
          memories: ordered(
            memories.filter((row) => row.subject_id === subjectId && visible(tenant)(row)),
          ).map(memoryWire),
        },
      };
    }
    if (path === "/v1/subjects" && method === "GET") {
      const limit = intQuery(url, "limit", 50, { min: 1, max: 200 });
      const offset = intQuery(url, "offset", 0, { min: 0, max: Number.MAX_SAFE_INTEGER });
      const counts = new Map<string, { episodes: number; memories: number }>();
      for (const row of episodes.filter(visible(tenant))) {
        const count = counts.get(row.subject_id) ?? { episodes: 0, memories: 0 };
        count.episodes += 1;
        counts.set(row.subject_id, count);
      }
      for (const row of memories.filter(visible(tenant))) {
        const count = counts.get(row.subject_id) ?? { episodes: 0, memories: 0 };
        count.memories += 1;
        counts.set(row.subject_id, count);
      }
      const page = [...counts.entries()]
        .filter(
          ([subjectId]) => !/^.snapshot\//.test(subjectId) && !/^.bootstrap.tmp\//.test(subjectId),
        )
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
        .slice(offset, offset + limit)
        .map(([subjectId, count]) => ({
          subject_id: subjectId,
          episode_count: count.episodes,
          memory_count: count.memories,
        }));
      // `total` is the page length in v0.7.1 (contract §5.8).
      return { status: 200, body: { subjects: page, total: page.length } };
    }
    const deleteMatch = /^\/v1\/subjects\/([^/]+)$/.exec(path);
    if (deleteMatch && method === "DELETE") {
      const subjectId = decodeURIComponent(deleteMatch[1] ?? "");
      const mine = (row: { subject_id: string; tenant: string | null }) =>
        row.subject_id === subjectId && visible(tenant)(row);
      const episodesDeleted = episodes.filter(mine).length;
      const memoriesDeleted = memories.filter(mine).length;
      episodes.splice(0, episodes.length, ...episodes.filter((row) => !mine(row)));
      memories.splice(0, memories.length, ...memories.filter((row) => !mine(row)));
      return {
        status: 200,
        body: {
          subject_id: subjectId,
          episodes_deleted: episodesDeleted,
          memories_deleted: memoriesDeleted,
        },
      };
    }
    const known = [
      "/v1/episodes",
      "/v1/episodes/batch",
      "/v1/memories/compile",
      "/v1/memories/search",
      "/v1/context",
      "/v1/timeline",
      "/v1/subjects",
    ];
    if (known.includes(path) || jobMatch || deleteMatch) {
      throw new Fail(405, { error: { code: "http_error", message: "Method Not Allowed" } });
    }
    throw new Fail(404, { error: { code: "http_error", message: "Not Found" } });
  }

  async function handle(request: Request): Promise<Response> {
    const url = new URL(request.url);
    const name = `${request.method} ${url.pathname}`;
    requests.set(name, (requests.get(name) ?? 0) + 1);
    const requestId = request.headers.get("x-request-id") ?? generateRequestId();
    const tenantHeader = request.headers.get("x-tenant-id");
    const tenant = tenantHeader === null ? undefined : tenantHeader;
    let status: number;
    let body: unknown;
    try {
      ({ status, body } = await route(request, url, tenant));
    } catch (error) {
      const failure = error instanceof Fail ? error : new Fail(500, internalError());
      status = failure.status;
      body = failure.body;
      // The exception handlers add the request id to the envelope (not to the bare job 404).
      const envelope = isObject(body as Json) ? (body as { error?: unknown }).error : undefined;
      if (isObject(envelope as Json) && status !== 500) {
        body = { error: { ...(envelope as object), request_id: requestId } };
      }
      if (status === 500) {
        // Produced outside the request-id middleware: no header (contract §3).
        return Response.json(
          {
            error: {
              code: "internal_error",
              message: "An unexpected error occurred",
              request_id: requestId,
            },
          },
          { status },
        );
      }
    }
    return Response.json(body, { status, headers: { "X-Request-ID": requestId } });
  }

  return {
    fetch: handle,
    clientFetch: (input, init) => handle(new Request(input, init)),
    requests,
  };
}

function internalError() {
  return { error: { code: "internal_error", message: "An unexpected error occurred" } };
}
