import type { Context, Hono } from "hono";
import type { z } from "zod";
import type { StoreChange } from "../context/context-store.js";
import { HttpError } from "./http-error.js";
import { toValidationDetails } from "./pydantic-fields.js";
import { changesQuery, itemIdParam, itemQuery, memoriesQuery } from "./request-schemas.js";
import type { ServerEnv } from "./server-env.js";
import { episodeToWire, memoryToWire } from "./wire-mapping.js";

/**
 * shared-ctx's exact reads over HTTP (docs/server.md "Exact reads"), beside Statewave's `/v1`:
 * memories by kind, target and status with cursor paging, a memory or an episode by id, and the
 * changes since a cursor. A real Statewave has none of them (404 `http_error`), which is how
 * `StatewaveStore` knows to fall back.
 */

type AppContext = Context<ServerEnv>;

function parse<T extends z.ZodType>(
  schema: T,
  input: unknown,
  where: "query" | "path",
): z.output<T> {
  const result = schema.safeParse(input);
  if (!result.success) {
    throw HttpError.validation(toValidationDetails(result.error.issues, where, input));
  }
  return result.data;
}

/** A change on the wire: `{type, episode}` or `{type, memory}`. */
function changeToWire(change: StoreChange) {
  return change.type === "episode"
    ? { type: "episode", episode: episodeToWire(change.episode) }
    : { type: "memory", memory: memoryToWire(change.memory) };
}

function notFound(what: "Memory" | "Episode"): HttpError {
  return new HttpError(404, { code: "not_found", message: `${what} not found` });
}

/** `GET /v1/memories` and `GET /v1/changes`: register before the method-not-allowed catch-alls. */
export function registerExactListRoutes(app: Hono<ServerEnv>): void {
  app.get("/v1/memories", async (c) => {
    const query = parse(
      memoriesQuery,
      { ...c.req.query(), target: c.req.queries("target") },
      "query",
    );
    const page = await c.var.store.listMemories(query.subject_id, {
      ...(query.kind !== null ? { kind: query.kind } : {}),
      ...(query.target !== undefined ? { targets: query.target as string[] } : {}),
      ...(query.target_prefix !== null ? { targetPrefix: query.target_prefix } : {}),
      ...(query.untargeted ? { untargeted: true } : {}),
      // The store names a bad status (422 on `status`), as it names every other field.
      ...(query.status !== null ? { status: query.status as "active" } : {}),
      limit: query.limit,
      cursor: query.cursor,
    });
    return c.json({ memories: page.memories.map(memoryToWire), next_cursor: page.nextCursor });
  });

  app.get("/v1/changes", async (c) => {
    const query = parse(changesQuery, c.req.query(), "query");
    const page = await c.var.store.changesSince(query.subject_id, query.cursor, {
      limit: query.limit,
    });
    return c.json({
      changes: page.changes.map(changeToWire),
      cursor: page.cursor,
      has_more: page.hasMore,
    });
  });
}

/**
 * `GET /v1/memories/{id}` and `GET /v1/episodes/{id}`: registered after the catch-alls, so
 * `/v1/memories/compile` and `/v1/episodes/batch` keep answering 405 to a GET, as Statewave does.
 */
export function registerExactItemRoutes(app: Hono<ServerEnv>): void {
  const item = (c: AppContext) => ({
    id: parse(itemIdParam, { id: c.req.param("id") }, "path").id,
    subjectId: parse(itemQuery, c.req.query(), "query").subject_id,
  });
  app.get("/v1/memories/:id", async (c) => {
    const { id, subjectId } = item(c);
    const memory = await c.var.store.getMemory(subjectId, id);
    if (memory === null) throw notFound("Memory");
    return c.json(memoryToWire(memory));
  });
  app.get("/v1/episodes/:id", async (c) => {
    const { id, subjectId } = item(c);
    const episode = await c.var.store.getEpisode(subjectId, id);
    if (episode === null) throw notFound("Episode");
    return c.json(episodeToWire(episode));
  });
}

/** The exact reads' paths, with the one method each takes (for the 405 catch-alls). */
export const exactReadPaths = [
  ["/v1/memories", "GET"],
  ["/v1/changes", "GET"],
  ["/v1/memories/:id", "GET"],
  ["/v1/episodes/:id", "GET"],
] as const;
