import type { ChangePage, Episode, Memory, MemoryPage, MemoryQuery } from "../context-store.js";
import { StatewaveAPIError } from "./errors/statewave-api-error.js";
import type { TransportRequest } from "./statewave-transport.js";

/**
 * `StatewaveClient`'s exact reads: the routes `shared-ctx serve` adds to Statewave's `/v1`
 * (docs/server.md "Exact reads"). A real Statewave (v0.7.1 or later) has none of them and answers
 * 404 `http_error` (or 405): {@link isMissingRoute} tells that apart from "no such memory".
 */

/** How the client sends one request and reads its answer (camelCase). */
type Call = <T>(request: TransportRequest) => Promise<T>;

/** `listMemories`' parameters: the store's query plus the subject. */
export interface ListMemoriesParams extends MemoryQuery {
  subjectId: string;
}

/** Whether `error` says the server has no such route (a Statewave without shared-ctx's reads). */
export function isMissingRoute(error: unknown): boolean {
  return (
    error instanceof StatewaveAPIError &&
    ((error.statusCode === 404 && error.code === "http_error") || error.statusCode === 405)
  );
}

/** Whether `error` is the exact reads' "no such item" (404 `not_found`). */
function isNotFound(error: unknown): boolean {
  return (
    error instanceof StatewaveAPIError && error.statusCode === 404 && error.code === "not_found"
  );
}

/** `GET /v1/memories`: one page, newest first. */
export function listMemoriesRequest(
  call: Call,
  params: ListMemoriesParams,
  signal: AbortSignal | undefined,
): Promise<MemoryPage> {
  return call<MemoryPage>({
    method: "GET",
    path: "/v1/memories",
    query: {
      subject_id: params.subjectId,
      kind: params.kind,
      target: params.targets,
      target_prefix: params.targetPrefix,
      untargeted: params.untargeted ? true : undefined,
      status: params.status,
      limit: params.limit,
      cursor: params.cursor ?? undefined,
    },
    ...(signal ? { signal } : {}),
  });
}

/** `GET /v1/memories/{id}` or `GET /v1/episodes/{id}`: the item, or null on 404 `not_found`. */
export async function itemByIdRequest<T extends Memory | Episode>(
  call: Call,
  collection: "memories" | "episodes",
  subjectId: string,
  id: string,
  signal: AbortSignal | undefined,
): Promise<T | null> {
  try {
    return await call<T>({
      method: "GET",
      path: `/v1/${collection}/${encodeURIComponent(id)}`,
      query: { subject_id: subjectId },
      ...(signal ? { signal } : {}),
    });
  } catch (error) {
    if (isNotFound(error)) return null;
    throw error;
  }
}

/** `GET /v1/changes`: one page of what changed after `cursor`, oldest first. */
export function changesRequest(
  call: Call,
  subjectId: string,
  cursor: string | null,
  options: { limit?: number; signal?: AbortSignal },
): Promise<ChangePage> {
  return call<ChangePage>({
    method: "GET",
    path: "/v1/changes",
    query: { subject_id: subjectId, cursor: cursor ?? undefined, limit: options.limit },
    ...(options.signal ? { signal: options.signal } : {}),
  });
}
