/**
 * The official Statewave TypeScript SDK's public parameter and result types (`@statewavedev/sdk`
 * v1.4, contract §10), for the subset shared-ctx serves. Episode, Memory and the other shapes
 * shared with `ContextStore` are re-used from `context-store.ts`; the names here are the SDK's, so
 * code written for the SDK type-checks against shared-ctx's `StatewaveClient` unchanged.
 */
import type { Episode, JsonObject, Memory, Timeline } from "../context-store.js";

/** Per-call options every HTTP method accepts. */
export interface RequestOptions {
  /** Cancels the request; an aborted call is never retried. */
  signal?: AbortSignal;
}

/** What `createEpisode` and each `createEpisodesBatch` item take. */
export interface CreateEpisodeParams {
  subjectId: string;
  source: string;
  type: string;
  payload: JsonObject;
  /** @default {} */
  metadata?: JsonObject;
  /** @default {} */
  provenance?: JsonObject;
  sessionId?: string;
  /**
   * De-duplication key (Statewave v1.1+ and `shared-ctx serve`): a create with a key the subject
   * has returns the first episode and stores nothing. Statewave v0.7.1 ignores it (contract §7).
   * @default a fresh key per call while retries are on (see `generateIdempotencyKey`)
   */
  idempotencyKey?: string;
}

/** What `searchMemories` takes. */
export interface SearchMemoriesParams {
  subjectId: string;
  /** Exact memory kind (`profile_fact`, `episode_summary`, `procedure`, `artifact_ref`). */
  kind?: string;
  /** Case-insensitive substring of the content (sent as `q`). */
  query?: string;
  semantic?: boolean;
  /** 0..100. @default 20 */
  limit?: number;
}

/** `searchMemories`' answer: active memories, newest first. */
export interface SearchResult {
  memories: Memory[];
}

/** What `getContext` and `getContextString` take. Receipt and caller fields are v0.8+ (ignored by v0.7.1). */
export interface GetContextParams {
  subjectId: string;
  task: string;
  /** Token budget. @default the server's, 4000 */
  maxTokens?: number;
  sessionId?: string;
  emitReceipt?: boolean;
  queryId?: string;
  taskId?: string;
  parentReceiptId?: string;
  callerId?: string;
  callerType?: string;
}

/** Paging of `getTimeline`. Statewave v0.7.1 ignores all three (oldest 100, contract §5.7). */
export interface TimelineParams {
  /** Rows per collection. */
  limit?: number;
  /** Rows to skip within the chosen ordering. */
  offset?: number;
  /** Page from the newest end (rows still oldest first within the page). v1.x servers only. */
  newestFirst?: boolean;
  /** Where the page starts: the previous page's `nextCursor` (`shared-ctx serve` only). */
  cursor?: string;
}

/** `getTimeline`'s answer; the `…HasMore` flags are absent when the server does not send them. */
export interface StatewaveTimeline extends Timeline {
  /** Whether more episodes exist beyond this page; `undefined` means the server did not say. */
  episodesHasMore?: boolean;
  memoriesHasMore?: boolean;
}

/** `createEpisodesBatch`' answer, episodes in request order. */
export interface BatchCreateResult {
  episodesCreated: number;
  episodes: Episode[];
}

/** `deleteSubject`'s answer. */
export interface DeleteResult {
  subjectId: string;
  episodesDeleted: number;
  memoriesDeleted: number;
}

/** The SDK's retry settings (`retry: false` turns retries off). */
export interface RetryConfig {
  /** Retries after the first attempt. @default 2 (the SDK's is 3) */
  maxRetries?: number;
  /** First backoff, doubled per attempt. @default 500 */
  backoffBase?: number;
  /** Backoff cap. @default 8000 (the SDK's is 30000) */
  backoffMax?: number;
  /** Random jitter on the backoff. @default true */
  jitter?: boolean;
  /** Statuses that are retried. @default [408, 409, 429, 500..599] */
  retryOnStatus?: number[];
}

/** The SDK's client options. */
export interface ClientOptions {
  /** The server's base URL; trailing `/` trimmed. @default "http://localhost:8100" */
  baseUrl?: string;
  /** Sent as `X-API-Key`. */
  apiKey?: string;
  /** Sent as `X-Tenant-ID`: the client then sees only that tenant's data. */
  tenantId?: string;
  retry?: RetryConfig | false;
}
