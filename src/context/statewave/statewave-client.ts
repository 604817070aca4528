import { randomUUID } from "node:crypto";
import type {
  ChangePage,
  CompileJob,
  CompileResult,
  ContextBundle,
  Episode,
  ListSubjectsResult,
  Memory,
  MemoryPage,
  StoreChange,
  Subscription,
  WatchOptions,
} from "../context-store.js";
import { CompileTimeoutError } from "../errors/compile-timeout-error.js";
import { fromWire, toWire } from "../wire-format.js";
import {
  changesRequest,
  itemByIdRequest,
  type ListMemoriesParams,
  listMemoriesRequest,
} from "./statewave-exact-reads.js";
import {
  abortableDelay,
  StatewaveTransport,
  type TransportRequest,
} from "./statewave-transport.js";
import type {
  BatchCreateResult,
  ClientOptions,
  CreateEpisodeParams,
  DeleteResult,
  GetContextParams,
  RequestOptions,
  SearchMemoriesParams,
  SearchResult,
  StatewaveTimeline,
  TimelineParams,
} from "./statewave-types.js";
import { joinSharedPoller, type SubscribeOptions, TimelineWatch } from "./statewave-watch.js";

/** Options of {@link StatewaveClient}: the SDK's `ClientOptions` plus injectable I/O. */
export interface StatewaveClientOptions extends ClientOptions {
  /** Per attempt, including reading the response. @default 30000 */
  timeoutMs?: number;
  /**
   * Retries after the first attempt on 408/409/429/5xx and connection errors (`retry.maxRetries`
   * wins when both are given). Creates carry an `idempotency_key` (see `generateIdempotencyKey`),
   * so a retried create is stored once by `shared-ctx serve` and Statewave v1.1+; Statewave
   * v0.7.1 ignores keys, and there a retried create whose first attempt was stored is stored
   * twice (contract §7).
   * @default 2
   */
  maxRetries?: number;
  /** @default globalThis.fetch, looked up per call */
  fetch?: typeof fetch;
  /** How often `watch` polls the timeline. @default 100 */
  pollIntervalMs?: number;
  /** Waits between retries and compile polls. @default setTimeout, abortable */
  delay?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Jitter source, 0..1. @default Math.random */
  random?: () => number;
  /** Clock, in ms since the epoch (Retry-After dates, compile wait timeout). @default Date.now */
  now?: () => number;
  /**
   * The `idempotency_key` of a create that has none of its own while retries are on: every
   * attempt of one call sends the same key, so a retry after a timeout whose first attempt was
   * stored returns that episode instead of storing it twice (on `shared-ctx serve` and Statewave
   * v1.1+; v0.7.1 ignores the key). @default crypto.randomUUID
   */
  generateIdempotencyKey?: () => string;
}

/**
 * Statewave's HTTP API with the official `@statewavedev/sdk` v1.4 public surface (contract §10):
 * the same constructor (`new StatewaveClient("http://…")` or an options object), method names,
 * object parameters, return shapes (`{ memories }`, `{ episodesCreated, episodes }`, …) and error
 * classes, so swapping `import { StatewaveClient } from "@statewavedev/sdk"` for `"shared-ctx"`
 * changes nothing else. camelCase in code, snake_case on the wire; `payload`, `metadata` and
 * `provenance` pass through untouched. Beyond the SDK it adds `watch` (one shared poller per
 * subject) and `close`.
 *
 * shared-ctx itself talks to a server through `StatewaveStore`, the `ContextStore` over this client.
 *
 * @throws StatewaveAPIError on an error status, StatewaveConnectionError when the server cannot
 *   be reached (from every method).
 */
export class StatewaveClient {
  /** The base URL, without a trailing `/`. */
  readonly baseUrl: string;
  readonly #transport: StatewaveTransport;
  readonly #pollIntervalMs: number;
  readonly #delay: (ms: number, signal?: AbortSignal) => Promise<void>;
  readonly #now: () => number;
  readonly #pollers = new Map<string, TimelineWatch>();
  readonly #idempotencyKey: () => string | undefined;

  /**
   * @param options a base URL, or options. @default "http://localhost:8100"
   */
  constructor(options: StatewaveClientOptions | string = {}) {
    const settings: StatewaveClientOptions =
      typeof options === "string" ? { baseUrl: options } : options;
    this.baseUrl = (settings.baseUrl ?? "http://localhost:8100").replace(/\/+$/, "");
    this.#delay = settings.delay ?? abortableDelay;
    this.#now = settings.now ?? Date.now;
    this.#pollIntervalMs = settings.pollIntervalMs ?? 100;
    const retry = settings.retry === false ? { maxRetries: 0 } : (settings.retry ?? {});
    const maxRetries = retry.maxRetries ?? settings.maxRetries ?? 2;
    // Without retries a call is sent once: no key is needed to make it safe.
    this.#idempotencyKey =
      maxRetries > 0 ? (settings.generateIdempotencyKey ?? randomUUID) : () => undefined;
    this.#transport = new StatewaveTransport({
      baseUrl: this.baseUrl,
      ...(settings.apiKey ? { apiKey: settings.apiKey } : {}),
      // Left `undefined` when not given: the transport then applies its defaults.
      tenantId: settings.tenantId,
      timeoutMs: settings.timeoutMs ?? 30_000,
      maxRetries,
      backoffBaseMs: retry.backoffBase,
      backoffMaxMs: retry.backoffMax,
      jitter: retry.jitter,
      ...(retry.retryOnStatus !== undefined ? { retryOnStatus: new Set(retry.retryOnStatus) } : {}),
      // Looked up per call so a test or polyfill that replaces globalThis.fetch later still applies.
      fetch: settings.fetch ?? ((input, init) => globalThis.fetch(input, init)),
      delay: this.#delay,
      random: settings.random ?? Math.random,
      now: this.#now,
    });
  }

  async #call<T>(request: TransportRequest): Promise<T> {
    return fromWire(await this.#transport.request(request)) as T;
  }

  /** `POST /v1/episodes` -> 201 Episode. */
  async createEpisode(params: CreateEpisodeParams, options?: RequestOptions): Promise<Episode> {
    await this.#pollersReady([params.subjectId]);
    const episode = await this.#call<Episode>({
      method: "POST",
      path: "/v1/episodes",
      body: toWire(episodeBody(this.#keyed(params))),
      ...signalOf(options),
    });
    await this.#refreshPollers([params.subjectId]);
    return episode;
  }

  /** `POST /v1/episodes/batch` (1..100) -> 201, all or nothing, in request order. */
  async createEpisodesBatch(
    episodes: CreateEpisodeParams[],
    options?: RequestOptions,
  ): Promise<BatchCreateResult> {
    const subjects = episodes.map((episode) => episode.subjectId);
    await this.#pollersReady(subjects);
    const result = await this.#call<BatchCreateResult>({
      method: "POST",
      path: "/v1/episodes/batch",
      body: { episodes: episodes.map((episode) => toWire(episodeBody(this.#keyed(episode)))) },
      ...signalOf(options),
    });
    await this.#refreshPollers(subjects);
    return result;
  }

  /** `POST /v1/memories/compile` -> 200, the memories this call created. */
  async compileMemories(subjectId: string, options?: RequestOptions): Promise<CompileResult> {
    const result = await this.#call<CompileResult>({
      method: "POST",
      path: "/v1/memories/compile",
      body: { subject_id: subjectId },
      ...signalOf(options),
    });
    await this.#refreshPollers([subjectId]);
    return result;
  }

  /** `POST /v1/memories/compile` with `async: true` -> 202 and a job to poll. */
  compileMemoriesAsync(subjectId: string, options?: RequestOptions): Promise<CompileJob> {
    return this.#call<CompileJob>({
      method: "POST",
      path: "/v1/memories/compile",
      body: { subject_id: subjectId, async: true },
      ...signalOf(options),
    });
  }

  /** `GET /v1/memories/compile/:jobId`. An unknown job is a `StatewaveAPIError` 404. */
  getCompileStatus(jobId: string, options?: RequestOptions): Promise<CompileJob> {
    return this.#call<CompileJob>({
      method: "GET",
      path: `/v1/memories/compile/${encodeURIComponent(jobId)}`,
      ...signalOf(options),
    });
  }

  /**
   * Starts a compile job and polls it every `pollInterval` ms until it completes or fails.
   * @param options.pollInterval @default 500
   * @param options.timeout @default 60000
   * @throws CompileTimeoutError after `timeout` ms
   */
  async compileMemoriesWait(
    subjectId: string,
    options: { pollInterval?: number; timeout?: number; signal?: AbortSignal } = {},
  ): Promise<CompileJob> {
    const pollInterval = options.pollInterval ?? 500;
    const timeout = options.timeout ?? 60_000;
    const startedAt = this.#now();
    let job = await this.compileMemoriesAsync(subjectId, signalOf(options));
    while (job.status !== "completed" && job.status !== "failed") {
      if (this.#now() - startedAt >= timeout) throw new CompileTimeoutError(job.jobId, timeout);
      await this.#delay(pollInterval, options.signal);
      job = await this.getCompileStatus(job.jobId, signalOf(options));
    }
    await this.#refreshPollers([subjectId]);
    return job;
  }

  /** `GET /v1/memories/search`: active memories, newest first. */
  searchMemories(params: SearchMemoriesParams, options?: RequestOptions): Promise<SearchResult> {
    return this.#call<SearchResult>({
      method: "GET",
      path: "/v1/memories/search",
      query: {
        subject_id: params.subjectId,
        // The SDK leaves empty strings out, as it does `undefined`.
        kind: params.kind || undefined,
        q: params.query || undefined,
        semantic: params.semantic ? true : undefined,
        limit: params.limit,
      },
      ...signalOf(options),
    });
  }

  /** `POST /v1/context`: the subject's memories ranked for `task`, within `maxTokens`. */
  getContext(params: GetContextParams, options?: RequestOptions): Promise<ContextBundle> {
    const body: Record<string, unknown> = { subjectId: params.subjectId, task: params.task };
    // Only the fields that are set, as the SDK sends them (contract §10): `toWire` leaves `undefined` out.
    for (const name of [
      "maxTokens",
      "sessionId",
      "emitReceipt",
      "queryId",
      "taskId",
      "parentReceiptId",
      "callerId",
      "callerType",
    ] as const) {
      body[name] = params[name];
    }
    return this.#call<ContextBundle>({
      method: "POST",
      path: "/v1/context",
      body: toWire(body),
      ...signalOf(options),
    });
  }

  /** {@link getContext}'s `assembledContext` alone, ready for a prompt. */
  async getContextString(params: GetContextParams, options?: RequestOptions): Promise<string> {
    return (await this.getContext(params, options)).assembledContext;
  }

  /**
   * `GET /v1/timeline`, oldest first. `limit`/`offset` are honoured by `shared-ctx serve`; a real
   * Statewave v0.7.1 ignores them and returns the oldest 100 episodes and memories. As in the SDK,
   * a second argument carrying `signal` alone is the request options.
   */
  getTimeline(subjectId: string, options?: RequestOptions): Promise<StatewaveTimeline>;
  getTimeline(
    subjectId: string,
    params?: TimelineParams,
    options?: RequestOptions,
  ): Promise<StatewaveTimeline>;
  getTimeline(
    subjectId: string,
    paramsOrOptions?: TimelineParams | RequestOptions,
    maybeOptions?: RequestOptions,
  ): Promise<StatewaveTimeline> {
    const secondIsOptions =
      paramsOrOptions !== undefined && "signal" in paramsOrOptions && maybeOptions === undefined;
    const params = (secondIsOptions ? undefined : paramsOrOptions) as TimelineParams | undefined;
    const options = secondIsOptions ? (paramsOrOptions as RequestOptions) : maybeOptions;
    return this.#call<StatewaveTimeline>({
      method: "GET",
      path: "/v1/timeline",
      query: {
        subject_id: subjectId,
        limit: params?.limit,
        offset: params?.offset,
        newest_first: params?.newestFirst,
        cursor: params?.cursor,
      },
      ...signalOf(options),
    });
  }

  /**
   * `GET /v1/memories` (a `shared-ctx serve` route, docs/server.md): one page of the subject's
   * memories matching the exact filters, newest first, and the cursor of the next.
   * @throws StatewaveAPIError 404 `http_error` from a Statewave without the route (see `isMissingRoute`)
   */
  listMemories(params: ListMemoriesParams, options?: RequestOptions): Promise<MemoryPage> {
    return listMemoriesRequest((request) => this.#call(request), params, options?.signal);
  }

  /** `GET /v1/memories/{id}?subject_id=` (`serve`): the memory, any status, or null. */
  getMemory(subjectId: string, memoryId: string, options?: RequestOptions): Promise<Memory | null> {
    const call = <T>(request: TransportRequest) => this.#call<T>(request);
    return itemByIdRequest<Memory>(call, "memories", subjectId, memoryId, options?.signal);
  }

  /** `GET /v1/episodes/{id}?subject_id=` (`serve`): the episode, or null. */
  getEpisode(
    subjectId: string,
    episodeId: string,
    options?: RequestOptions,
  ): Promise<Episode | null> {
    const call = <T>(request: TransportRequest) => this.#call<T>(request);
    return itemByIdRequest<Episode>(call, "episodes", subjectId, episodeId, options?.signal);
  }

  /** `GET /v1/changes?subject_id=&cursor=&limit=` (`serve`): what changed after `cursor`. */
  changesSince(
    subjectId: string,
    cursor: string | null,
    options: { limit?: number; signal?: AbortSignal } = {},
  ): Promise<ChangePage> {
    return changesRequest((request) => this.#call(request), subjectId, cursor, options);
  }

  /** `GET /v1/subjects`. */
  listSubjects(
    params?: { limit?: number; offset?: number },
    options?: RequestOptions,
  ): Promise<ListSubjectsResult> {
    return this.#call<ListSubjectsResult>({
      method: "GET",
      path: "/v1/subjects",
      query: { limit: params?.limit, offset: params?.offset },
      ...signalOf(options),
    });
  }

  /** `DELETE /v1/subjects/:subjectId`: this tenant's episodes and memories of the subject. */
  async deleteSubject(subjectId: string, options?: RequestOptions): Promise<DeleteResult> {
    const result = await this.#call<DeleteResult>({
      method: "DELETE",
      path: `/v1/subjects/${encodeURIComponent(subjectId)}`,
      ...signalOf(options),
    });
    this.#pollers.get(subjectId)?.reset();
    return result;
  }

  /**
   * Follows a subject: new episodes and memories (created or changed, e.g. superseded), in order.
   * One poller per subject serves every `watch` of this client on it, polling `GET /v1/timeline`
   * every `pollIntervalMs`. Writes made through this client are delivered before the write's
   * promise resolves; other writers' within one poll interval. Against a real Statewave v0.7.1
   * only the oldest 100 episodes and memories are ever visible.
   * @param options.onHistory told what the poller had seen before this watch joined (see `SubscribeOptions`)
   */
  watch(
    subjectId: string,
    listener: (change: StoreChange) => void,
    options: WatchOptions & Pick<SubscribeOptions, "onHistory"> = {},
  ): Subscription {
    return joinSharedPoller(
      this.#pollers,
      subjectId,
      () =>
        new TimelineWatch({
          subjectId,
          pollIntervalMs: this.#pollIntervalMs,
          fetchPage: (offset, limit, signal) =>
            this.#call<StatewaveTimeline>({
              method: "GET",
              path: "/v1/timeline",
              query: { subject_id: subjectId, limit, offset },
              signal,
              // The poll loop itself is the retry.
              maxRetries: 0,
            }),
        }),
      listener,
      options,
    );
  }

  /** Stops every watch. The client holds no other resources. Idempotent. */
  async close(): Promise<void> {
    for (const poller of this.#pollers.values()) poller.close();
    this.#pollers.clear();
  }

  /** A write issued after `watch()` must be seen as new, so it waits for the poller's baseline. */
  /** `params` with an idempotency key: its own, or one drawn now for every attempt of this call. */
  #keyed(params: CreateEpisodeParams): CreateEpisodeParams {
    if (params.idempotencyKey !== undefined) return params;
    const idempotencyKey = this.#idempotencyKey();
    return idempotencyKey === undefined ? params : { ...params, idempotencyKey };
  }

  async #pollersReady(subjectIds: string[]): Promise<void> {
    await Promise.all(
      [...new Set(subjectIds)].map((subjectId) => this.#pollers.get(subjectId)?.ready),
    );
  }

  async #refreshPollers(subjectIds: string[]): Promise<void> {
    await Promise.all(
      [...new Set(subjectIds)].map((subjectId) => this.#pollers.get(subjectId)?.pollNow()),
    );
  }
}

function signalOf(options: RequestOptions | undefined): { signal?: AbortSignal } {
  return options?.signal ? { signal: options.signal } : {};
}

/**
 * The body the SDK sends: `metadata`/`provenance` always, the optional fields only when set
 * (`toWire` leaves `undefined` out; a `null` session is left out too).
 */
function episodeBody(params: CreateEpisodeParams) {
  return {
    subjectId: params.subjectId,
    source: params.source,
    type: params.type,
    payload: params.payload,
    metadata: params.metadata ?? {},
    provenance: params.provenance ?? {},
    sessionId: params.sessionId ?? undefined,
    idempotencyKey: params.idempotencyKey,
  };
}
