import type { Context, Hono } from "hono";
import type { z } from "zod";
import type { ContextStore, JsonObject } from "../context/context-store.js";
import { messageOf } from "../errors.js";
import { readBoundedTimeline, timelineBody } from "./bounded-timeline.js";
import {
  exactReadPaths,
  registerExactItemRoutes,
  registerExactListRoutes,
} from "./exact-routes.js";
import { HttpError } from "./http-error.js";
import { toValidationDetails } from "./pydantic-fields.js";
import { readJsonBody } from "./read-json-body.js";
import {
  compileBody,
  contextBody,
  createEpisodeBody,
  createEpisodesBatchBody,
  jobIdParam,
  searchQuery,
  subjectIdParam,
  subjectsQuery,
  timelineQuery,
} from "./request-schemas.js";
import type { ServerEnv } from "./server-env.js";
import {
  compileJobToWire,
  compileResultToWire,
  contextBundleToWire,
  deleteSubjectToWire,
  episodeToWire,
  memoryToWire,
  subjectsToWire,
  summaryStoreKinds,
} from "./wire-mapping.js";

type AppContext = Context<ServerEnv>;

/** What the routes need besides the per-request store. */
export interface V1RouteOptions {
  maxBodyBytes: number;
  /** The most bytes of JSON one `GET /v1/timeline` answer holds (see `bounded-timeline.ts`). */
  maxResponseBytes: number;
  /** The store `/readyz` probes. */
  readinessStore: () => ContextStore;
  /** Why the store cannot take writes now (a full disk), failing `/readyz`; undefined if it can. */
  storageProblem: () => string | undefined;
}

function parse<T extends z.ZodType>(
  schema: T,
  input: unknown,
  where: "body" | "query" | "path",
): z.output<T> {
  const result = schema.safeParse(input);
  if (!result.success) {
    throw HttpError.validation(toValidationDetails(result.error.issues, where, input));
  }
  return result.data;
}

async function parseBody<T extends z.ZodType>(
  c: AppContext,
  schema: T,
  maxBytes: number,
): Promise<z.output<T>> {
  return parse(schema, await readJsonBody(c.req.raw, maxBytes), "body");
}

function episodeInput(body: z.output<typeof createEpisodeBody>) {
  return {
    subjectId: body.subject_id,
    source: body.source,
    type: body.type,
    // Opaque user data: JSON objects straight from JSON.parse, stored exactly as sent.
    payload: body.payload as JsonObject,
    metadata: body.metadata as JsonObject,
    provenance: body.provenance as JsonObject,
    sessionId: body.session_id,
    idempotencyKey: body.idempotency_key,
  };
}

/** Answers 405 for a known path asked with a method it does not serve. */
function methodNotAllowed(allowed: string) {
  return () => {
    throw new HttpError(
      405,
      { code: "http_error", message: "Method Not Allowed" },
      { Allow: allowed },
    );
  };
}

/** The Statewave `/v1` subset (contract §5) plus health and readiness. */
export function registerV1Routes(app: Hono<ServerEnv>, options: V1RouteOptions): void {
  registerHealthRoutes(app, options);
  registerWriteRoutes(app, options);
  registerReadRoutes(app, options);
  registerExactListRoutes(app);
  // After every route: a known path with another method answers 405 with the methods it takes.
  registerMethodNotAllowed(app);
  // After the catch-alls: GET /v1/memories/compile and /v1/episodes/batch stay 405.
  registerExactItemRoutes(app);
  for (const [path, allowed] of exactReadPaths) app.all(path, methodNotAllowed(allowed));
}

/** Liveness (`/healthz`) and readiness (`/readyz`: storage and database), with Statewave's aliases. */
function registerHealthRoutes(app: Hono<ServerEnv>, options: V1RouteOptions): void {
  app.get("/healthz", (c) => c.json({ status: "ok" }));
  app.get("/health", (c) => c.json({ status: "ok" }));
  const ready = async (c: AppContext) => {
    const problem = options.storageProblem();
    if (problem !== undefined) {
      return c.json(
        { status: "not_ready", checks: [{ name: "storage", status: "fail", detail: problem }] },
        503,
      );
    }
    try {
      await options.readinessStore().listSubjects({ limit: 1 });
      return c.json({ status: "ready", checks: [{ name: "database", status: "ok" }] });
    } catch (error) {
      // The reason can carry the database URL (user, host, port, name): only for a caller with a key.
      const detail = messageOf(error);
      return c.json(
        {
          status: "not_ready",
          checks: [
            { name: "database", status: "fail", ...(c.var.authenticated ? { detail } : {}) },
          ],
        },
        503,
      );
    }
  };
  app.get("/readyz", ready);
  app.get("/ready", ready);
}

/** The routes that write: episodes (one or a batch) and compiling memories. */
function registerWriteRoutes(app: Hono<ServerEnv>, options: V1RouteOptions): void {
  const { maxBodyBytes } = options;
  app.post("/v1/episodes", async (c) => {
    const body = await parseBody(c, createEpisodeBody, maxBodyBytes);
    const episode = await c.var.store.createEpisode(episodeInput(body));
    return c.json(episodeToWire(episode), 201);
  });

  app.post("/v1/episodes/batch", async (c) => {
    const body = await parseBody(c, createEpisodesBatchBody, maxBodyBytes);
    const result = await c.var.store.createEpisodesBatch(body.episodes.map(episodeInput));
    return c.json(
      { episodes_created: result.episodesCreated, episodes: result.episodes.map(episodeToWire) },
      201,
    );
  });

  app.post("/v1/memories/compile", async (c) => {
    const body = await parseBody(c, compileBody, maxBodyBytes);
    if (body.async) {
      const job = await c.var.store.compileMemoriesAsync(body.subject_id);
      return c.json({ job_id: job.jobId, status: job.status, subject_id: job.subjectId }, 202);
    }
    return c.json(compileResultToWire(await c.var.store.compileMemories(body.subject_id)), 200);
  });
}

/** The routes that read: compile jobs, search, context, timeline and subjects (and deleting one). */
function registerReadRoutes(app: Hono<ServerEnv>, options: V1RouteOptions): void {
  const { maxBodyBytes } = options;

  app.get("/v1/memories/compile/:jobId", async (c) => {
    const { job_id: jobId } = parse(jobIdParam, { job_id: c.req.param("jobId") }, "path");
    return c.json(compileJobToWire(await c.var.store.getCompileStatus(jobId)));
  });

  app.get("/v1/memories/search", async (c) => {
    const query = parse(searchQuery, c.req.query(), "query");
    // Statewave accepts an empty subject_id here and finds nothing; the store needs 1..256.
    if (query.subject_id === "") return c.json({ memories: [] });
    const search = (kind: string | null) =>
      c.var.store.searchMemories(query.subject_id, {
        ...(kind !== null ? { kind } : {}),
        ...(query.q !== null ? { q: query.q } : {}),
        semantic: query.semantic,
        limit: query.limit,
      });
    // On the wire our richer kinds are `episode_summary`s (wire-mapping.ts): asking for that kind
    // finds them too, newest first; any other kind (ours included) filters as stored.
    const memories =
      query.kind === "episode_summary"
        ? (await Promise.all(summaryStoreKinds.map(search)))
            .flat()
            .sort((a, b) => Date.parse(b.createdAt) - Date.parse(a.createdAt))
            .slice(0, query.limit)
        : await search(query.kind);
    return c.json({ memories: memories.map(memoryToWire) });
  });

  app.post("/v1/context", async (c) => {
    const body = await parseBody(c, contextBody, maxBodyBytes);
    const bundle = await c.var.store.getContext(body.subject_id, body.task, {
      ...(body.max_tokens !== null ? { maxTokens: body.max_tokens } : {}),
      ...(body.session_id !== null ? { sessionId: body.session_id } : {}),
    });
    return c.json(contextBundleToWire(bundle));
  });

  app.get("/v1/timeline", (c) => answerTimeline(c, options.maxResponseBytes));

  app.get("/v1/subjects", async (c) => {
    const query = parse(subjectsQuery, c.req.query(), "query");
    return c.json(subjectsToWire(await c.var.store.listSubjects(query)));
  });

  // `{.+}` also takes a subject id with an unencoded `/`, which Statewave cannot delete (§5.9).
  app.delete("/v1/subjects/:subjectId{.+}", async (c) => {
    const path = parse(subjectIdParam, { subject_id: c.req.param("subjectId") }, "path");
    const result = await c.var.store.deleteSubject(path.subject_id);
    return c.json(deleteSubjectToWire(result));
  });
}

/**
 * `GET /v1/timeline`: one page, cut at `maxResponseBytes` (see `bounded-timeline.ts`), by offset,
 * cursor or from the newest end.
 */
async function answerTimeline(c: AppContext, maxResponseBytes: number): Promise<Response> {
  const raw = c.req.query();
  const query = parse(timelineQuery, raw, "query");
  // Statewave >= 1.5's paging fields (and our cursor) are answered only to a request that names
  // one: a bare request gets v0.7.1's shape, field for field.
  const paged = ["limit", "offset", "cursor", "newest_first"].some((name) => name in raw);
  if (query.subject_id === "") {
    const empty = { subject_id: "", episodes: [], memories: [] };
    return c.json(
      paged
        ? { ...empty, episodes_has_more: false, memories_has_more: false, next_cursor: null }
        : empty,
    );
  }
  const timeline = await readBoundedTimeline(c.var.store, query.subject_id, {
    limit: query.limit,
    offset: query.offset,
    cursor: query.cursor,
    newestFirst: query.newest_first,
    maxBytes: maxResponseBytes,
  });
  const headers: Record<string, string> = { "Content-Type": "application/json" };
  // Cut at the byte cap: the client asks again from here (docs/server.md).
  if (timeline.nextOffset !== undefined) headers["X-Next-Offset"] = String(timeline.nextOffset);
  if (paged && typeof timeline.nextCursor === "string") {
    headers["X-Next-Cursor"] = timeline.nextCursor;
  }
  return c.body(timelineBody(query.subject_id, timeline, paged), 200, headers);
}

/** Every path above, with the one method it takes. */
function registerMethodNotAllowed(app: Hono<ServerEnv>): void {
  for (const [path, allowed] of [
    ["/healthz", "GET"],
    ["/health", "GET"],
    ["/readyz", "GET"],
    ["/ready", "GET"],
    ["/v1/episodes", "POST"],
    ["/v1/episodes/batch", "POST"],
    ["/v1/memories/compile", "POST"],
    ["/v1/memories/compile/:jobId", "GET"],
    ["/v1/memories/search", "GET"],
    ["/v1/context", "POST"],
    ["/v1/timeline", "GET"],
    ["/v1/subjects", "GET"],
    ["/v1/subjects/:subjectId{.+}", "DELETE"],
  ] as const) {
    app.all(path, methodNotAllowed(allowed));
  }
}
