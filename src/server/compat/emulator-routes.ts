import { postContextBody } from "./emulator-context.js";
import {
  compile,
  type EmulatorState,
  episodeWire,
  insertEpisodes,
  type JobRow,
  type MemoryRow,
  memoryWire,
  visible,
} from "./emulator-store.js";
import {
  checkStrings,
  episodeDetails,
  Fail,
  internalError,
  intQuery,
  readBody,
  requiredSubject,
  validation,
} from "./emulator-validation.js";
import type { Json } from "./statewave-heuristic.js";
import { HeuristicCompileError } from "./statewave-heuristic.js";

// The emulator's routes, one function each, as v0.7.1 answers them (contract §5).

/** A route's answer before the request id is added. */
export interface Answer {
  status: number;
  body: unknown;
}

/** Answers one request from the emulator's memory, or throws the `Fail` v0.7.1 answers. */
export async function route(
  state: EmulatorState,
  request: Request,
  url: URL,
  tenant: string | undefined,
): Promise<Answer> {
  const path = url.pathname;
  const method = request.method;
  if ((path === "/healthz" || path === "/health") && method === "GET")
    return { status: 200, body: { status: "ok" } };
  if (path === "/v1/episodes" && method === "POST") return postEpisode(state, request, tenant);
  if (path === "/v1/episodes/batch" && method === "POST")
    return postEpisodeBatch(state, request, tenant);
  if (path === "/v1/memories/compile" && method === "POST")
    return postCompile(state, request, tenant);
  const jobMatch = /^\/v1\/memories\/compile\/([^/]+)$/.exec(path);
  if (jobMatch && method === "GET") return getJob(state, jobMatch);
  if (path === "/v1/memories/search" && method === "GET") return searchMemories(state, url, tenant);
  if (path === "/v1/context" && method === "POST") return postContext(state, request, tenant);
  if (path === "/v1/timeline" && method === "GET") return getTimeline(state, url, tenant);
  if (path === "/v1/subjects" && method === "GET") return listSubjects(state, url, tenant);
  const deleteMatch = /^\/v1\/subjects\/([^/]+)$/.exec(path);
  if (deleteMatch && method === "DELETE") return deleteSubject(state, deleteMatch, tenant);
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

/** `POST /v1/episodes`: one episode. */
async function postEpisode(
  state: EmulatorState,
  request: Request,
  tenant: string | undefined,
): Promise<Answer> {
  const body = await readBody(request);
  const details = episodeDetails(body, ["body"]);
  if (details.length > 0) throw validation(details);
  const [row] = insertEpisodes(state, [body], tenant);
  return { status: 201, body: row ? episodeWire(row) : null };
}

/** `POST /v1/episodes/batch`: 1 to 100 episodes, one transaction. */
async function postEpisodeBatch(
  state: EmulatorState,
  request: Request,
  tenant: string | undefined,
): Promise<Answer> {
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
  const details = items.flatMap((item, index) => episodeDetails(item, ["body", "episodes", index]));
  if (details.length > 0) throw validation(details);
  const rows = insertEpisodes(state, items as { [key: string]: Json }[], tenant);
  return {
    status: 201,
    body: { episodes_created: rows.length, episodes: rows.map(episodeWire) },
  };
}

/** `POST /v1/memories/compile`: at once, or as a job answered 202 (`async`). */
async function postCompile(
  state: EmulatorState,
  request: Request,
  tenant: string | undefined,
): Promise<Answer> {
  const body = await readBody(request);
  checkStrings(body, [["subject_id", 256]]);
  const subjectId = body.subject_id as string;
  const asynchronous =
    body.async === true || body.async === "true" || body.async === "yes" || body.async === 1;
  if (asynchronous) {
    const job: JobRow = { job_id: state.generateJobId(), status: "pending", subject_id: subjectId };
    state.jobs.set(job.job_id, job);
    const answer = { job_id: job.job_id, status: job.status, subject_id: subjectId };
    // Runs after the 202 is answered, as v0.7.1's asyncio task does.
    setTimeout(() => {
      try {
        const created = compile(state, subjectId, tenant);
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
    created = compile(state, subjectId, tenant);
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

/** `GET /v1/memories/compile/:id`: a compile job's status. */
function getJob(state: EmulatorState, jobMatch: RegExpExecArray): Answer {
  const job = state.jobs.get(decodeURIComponent(jobMatch[1] ?? ""));
  // Not the envelope: a bare string (contract §3, fixture 15).
  if (job === undefined) throw new Fail(404, { error: "Job not found or expired" });
  return { status: 200, body: { ...job } };
}

/** `GET /v1/memories/search`: active memories, newest first, by kind and substring. */
function searchMemories(state: EmulatorState, url: URL, tenant: string | undefined): Answer {
  const subjectId = requiredSubject(url);
  const limit = intQuery(url, "limit", 20, { max: 100 });
  if (limit < 0) throw new Fail(500, internalError());
  const kind = url.searchParams.get("kind");
  const q = url.searchParams.get("q");
  const found = state.memories
    .filter(
      (row) => row.subject_id === subjectId && row.status === "active" && visible(tenant)(row),
    )
    .filter((row) => kind === null || row.kind === kind)
    .filter((row) => !q || row.content.toLowerCase().includes(q.toLowerCase()))
    .sort((a, b) => b.time - a.time || a.seq - b.seq)
    .slice(0, limit);
  return { status: 200, body: { memories: found.map(memoryWire) } };
}

/** `POST /v1/context`: the ranked context bundle. */
async function postContext(
  state: EmulatorState,
  request: Request,
  tenant: string | undefined,
): Promise<Answer> {
  const body = await readBody(request);
  checkStrings(body, [
    ["subject_id", 256],
    ["task", 4000],
  ]);
  return { status: 200, body: postContextBody(state, body, tenant) };
}

/** `GET /v1/timeline`: the oldest 100 episodes and memories, whatever the query says. */
function getTimeline(state: EmulatorState, url: URL, tenant: string | undefined): Answer {
  const subjectId = requiredSubject(url);
  // limit/offset are not parameters of this route in v0.7.1: the oldest 100, always.
  const ordered = <T extends { time: number; seq: number }>(rows: T[]) =>
    rows.sort((a, b) => a.time - b.time || a.seq - b.seq).slice(0, 100);
  return {
    status: 200,
    body: {
      subject_id: subjectId,
      episodes: ordered(
        state.episodes.filter((row) => row.subject_id === subjectId && visible(tenant)(row)),
      ).map(episodeWire),
      memories: ordered(
        state.memories.filter((row) => row.subject_id === subjectId && visible(tenant)(row)),
      ).map(memoryWire),
    },
  };
}

/** `GET /v1/subjects`: a page of subjects with their counts. */
function listSubjects(state: EmulatorState, url: URL, tenant: string | undefined): Answer {
  const limit = intQuery(url, "limit", 50, { min: 1, max: 200 });
  const offset = intQuery(url, "offset", 0, { min: 0, max: Number.MAX_SAFE_INTEGER });
  const counts = new Map<string, { episodes: number; memories: number }>();
  for (const row of state.episodes.filter(visible(tenant))) {
    const count = counts.get(row.subject_id) ?? { episodes: 0, memories: 0 };
    count.episodes += 1;
    counts.set(row.subject_id, count);
  }
  for (const row of state.memories.filter(visible(tenant))) {
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

/** `DELETE /v1/subjects/:id`: a subject's episodes and memories. */
function deleteSubject(
  state: EmulatorState,
  deleteMatch: RegExpExecArray,
  tenant: string | undefined,
): Answer {
  const subjectId = decodeURIComponent(deleteMatch[1] ?? "");
  const mine = (row: { subject_id: string; tenant: string | null }) =>
    row.subject_id === subjectId && visible(tenant)(row);
  const episodesDeleted = state.episodes.filter(mine).length;
  const memoriesDeleted = state.memories.filter(mine).length;
  state.episodes.splice(0, state.episodes.length, ...state.episodes.filter((row) => !mine(row)));
  state.memories.splice(0, state.memories.length, ...state.memories.filter((row) => !mine(row)));
  return {
    status: 200,
    body: {
      subject_id: subjectId,
      episodes_deleted: episodesDeleted,
      memories_deleted: memoriesDeleted,
    },
  };
}
