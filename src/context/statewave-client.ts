import type {
  CompileJob,
  CompileResult,
  CompileWaitOptions,
  ContextBundle,
  ContextStore,
  CreateEpisodeInput,
  DeleteSubjectResult,
  Episode,
  GetContextOptions,
  ListSubjectsOptions,
  ListSubjectsResult,
  Memory,
  SearchMemoriesOptions,
  StoreChange,
  Subscription,
  Timeline,
  TimelineOptions,
  WatchOptions,
} from "./context-store.js";
import { CompileTimeoutError } from "./errors/compile-timeout-error.js";
import {
  abortableDelay,
  StatewaveTransport,
  type TransportRequest,
} from "./statewave-transport.js";
import { TimelineWatch } from "./statewave-watch.js";
import { fromWire, toWire } from "./wire-format.js";

/** Options of {@link StatewaveClient}. */
export interface StatewaveClientOptions {
  /** The server's base URL; a trailing `/` is trimmed. @default "http://localhost:8100" */
  baseUrl?: string;
  /** Sent as `X-API-Key`. */
  apiKey?: string;
  /** Sent as `X-Tenant-ID`: the client then sees only that tenant's data. */
  tenantId?: string;
  /** Per attempt, including reading the response. @default 30000 */
  timeoutMs?: number;
  /**
   * Retries after the first attempt on 408/409/429/5xx and connection errors. Note that Statewave
   * v0.7.1 has no idempotency keys: a retried `createEpisode` whose first attempt did reach the
   * database stores the episode twice (contract §7). @default 2
   */
  maxRetries?: number;
  /** @default globalThis.fetch */
  fetch?: typeof fetch;
  /** How often `watch` polls the timeline. @default 100 */
  pollIntervalMs?: number;
  /** Waits between retries and compile polls. @default setTimeout, abortable */
  delay?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Jitter source, 0..1. @default Math.random */
  random?: () => number;
  /** Clock, in ms since the epoch (Retry-After dates, compile wait timeout). @default Date.now */
  now?: () => number;
}

type Signal = { signal?: AbortSignal };

function signalOf(options: Signal | undefined): { signal?: AbortSignal } {
  return options?.signal ? { signal: options.signal } : {};
}

/**
 * A `ContextStore` over HTTP: a real Statewave server, or `shared-ctx serve`. Same method names
 * and camelCase shapes as the official `@statewavedev/sdk`; snake_case on the wire with
 * `payload`/`metadata`/`provenance` passed through untouched (contract §10).
 *
 * @throws StatewaveAPIError on an error status, StatewaveConnectionError when the server cannot
 *   be reached (from every method).
 */
export class StatewaveClient implements ContextStore {
  readonly baseUrl: string;
  readonly #transport: StatewaveTransport;
  readonly #pollIntervalMs: number;
  readonly #delay: (ms: number, signal?: AbortSignal) => Promise<void>;
  readonly #now: () => number;
  readonly #watches = new Set<TimelineWatch>();

  constructor(options: StatewaveClientOptions = {}) {
    this.baseUrl = (options.baseUrl ?? "http://localhost:8100").replace(/\/+$/, "");
    this.#delay = options.delay ?? abortableDelay;
    this.#now = options.now ?? Date.now;
    this.#pollIntervalMs = options.pollIntervalMs ?? 100;
    this.#transport = new StatewaveTransport({
      baseUrl: this.baseUrl,
      ...(options.apiKey !== undefined ? { apiKey: options.apiKey } : {}),
      ...(options.tenantId !== undefined ? { tenantId: options.tenantId } : {}),
      timeoutMs: options.timeoutMs ?? 30_000,
      maxRetries: options.maxRetries ?? 2,
      // Looked up per call so a test or polyfill that replaces globalThis.fetch later still applies.
      fetch: options.fetch ?? ((input, init) => globalThis.fetch(input, init)),
      delay: this.#delay,
      random: options.random ?? Math.random,
      now: this.#now,
    });
  }

  async #call<T>(request: TransportRequest): Promise<T> {
    return fromWire(await this.#transport.request(request)) as T;
  }

  /** `POST /v1/episodes` -> 201. */
  async createEpisode(input: CreateEpisodeInput, options?: Signal): Promise<Episode> {
    await this.#watchesReady([input.subjectId]);
    const episode = await this.#call<Episode>({
      method: "POST",
      path: "/v1/episodes",
      body: toWire(episodeBody(input)),
      ...signalOf(options),
    });
    await this.#refreshWatches([input.subjectId]);
    return episode;
  }

  /** `POST /v1/episodes/batch` -> 201, all or nothing, in request order. */
  async createEpisodesBatch(
    inputs: CreateEpisodeInput[],
    options?: Signal,
  ): Promise<{ episodesCreated: number; episodes: Episode[] }> {
    const subjects = inputs.map((input) => input.subjectId);
    await this.#watchesReady(subjects);
    const result = await this.#call<{ episodesCreated: number; episodes: Episode[] }>({
      method: "POST",
      path: "/v1/episodes/batch",
      body: { episodes: inputs.map((input) => toWire(episodeBody(input))) },
      ...signalOf(options),
    });
    await this.#refreshWatches(subjects);
    return result;
  }

  /** `POST /v1/memories/compile` -> 200. */
  async compileMemories(subjectId: string, options?: Signal): Promise<CompileResult> {
    const result = await this.#call<CompileResult>({
      method: "POST",
      path: "/v1/memories/compile",
      body: { subject_id: subjectId },
      ...signalOf(options),
    });
    await this.#refreshWatches([subjectId]);
    return result;
  }

  /** `POST /v1/memories/compile` with `async: true` -> 202 and a job to poll. */
  compileMemoriesAsync(subjectId: string, options?: Signal): Promise<CompileJob> {
    return this.#call<CompileJob>({
      method: "POST",
      path: "/v1/memories/compile",
      body: { subject_id: subjectId, async: true },
      ...signalOf(options),
    });
  }

  /** `GET /v1/memories/compile/:jobId`. An unknown job is a `StatewaveAPIError` 404. */
  getCompileStatus(jobId: string, options?: Signal): Promise<CompileJob> {
    return this.#call<CompileJob>({
      method: "GET",
      path: `/v1/memories/compile/${encodeURIComponent(jobId)}`,
      ...signalOf(options),
    });
  }

  /**
   * Starts a compile job and polls it until it completes or fails.
   * @throws CompileTimeoutError after `timeoutMs`.
   */
  async compileMemoriesWait(
    subjectId: string,
    options: CompileWaitOptions = {},
  ): Promise<CompileJob> {
    const pollIntervalMs = options.pollIntervalMs ?? 500;
    const timeoutMs = options.timeoutMs ?? 60_000;
    const startedAt = this.#now();
    let job = await this.compileMemoriesAsync(subjectId, signalOf(options));
    while (job.status !== "completed" && job.status !== "failed") {
      if (this.#now() - startedAt >= timeoutMs) throw new CompileTimeoutError(job.jobId, timeoutMs);
      await this.#delay(pollIntervalMs, options.signal);
      job = await this.getCompileStatus(job.jobId, signalOf(options));
    }
    await this.#refreshWatches([subjectId]);
    return job;
  }

  /** `GET /v1/memories/search`: active memories, newest first. */
  async searchMemories(
    subjectId: string,
    options: SearchMemoriesOptions & Signal = {},
  ): Promise<Memory[]> {
    const result = await this.#call<{ memories: Memory[] }>({
      method: "GET",
      path: "/v1/memories/search",
      query: {
        subject_id: subjectId,
        kind: options.kind,
        q: options.q,
        semantic: options.semantic ? true : undefined,
        limit: options.limit,
      },
      ...signalOf(options),
    });
    return result.memories;
  }

  /** `POST /v1/context`. */
  getContext(
    subjectId: string,
    task: string,
    options: GetContextOptions & Signal = {},
  ): Promise<ContextBundle> {
    return this.#call<ContextBundle>({
      method: "POST",
      path: "/v1/context",
      body: {
        subject_id: subjectId,
        task,
        ...(options.maxTokens !== undefined ? { max_tokens: options.maxTokens } : {}),
        ...(options.sessionId !== undefined ? { session_id: options.sessionId } : {}),
      },
      ...signalOf(options),
    });
  }

  /**
   * `GET /v1/timeline`. `limit`/`offset` are honoured by `shared-ctx serve`; a real Statewave
   * v0.7.1 ignores them and returns the oldest 100 episodes and memories.
   */
  getTimeline(subjectId: string, options: TimelineOptions & Signal = {}): Promise<Timeline> {
    return this.#call<Timeline>({
      method: "GET",
      path: "/v1/timeline",
      query: { subject_id: subjectId, limit: options.limit, offset: options.offset },
      ...signalOf(options),
    });
  }

  /** `GET /v1/subjects`. */
  listSubjects(options: ListSubjectsOptions & Signal = {}): Promise<ListSubjectsResult> {
    return this.#call<ListSubjectsResult>({
      method: "GET",
      path: "/v1/subjects",
      query: { limit: options.limit, offset: options.offset },
      ...signalOf(options),
    });
  }

  /** `DELETE /v1/subjects/:subjectId`: this tenant's episodes and memories of the subject. */
  async deleteSubject(subjectId: string, options?: Signal): Promise<DeleteSubjectResult> {
    const result = await this.#call<DeleteSubjectResult>({
      method: "DELETE",
      path: `/v1/subjects/${encodeURIComponent(subjectId)}`,
      ...signalOf(options),
    });
    for (const watch of this.#watches) if (watch.subjectId === subjectId) watch.reset();
    return result;
  }

  /**
   * Follows the subject by polling `GET /v1/timeline` every `pollIntervalMs`. Writes made through
   * this client are delivered before the write's promise resolves; other writers' within one
   * poll interval. Against a real Statewave v0.7.1 only the oldest 100 episodes are ever visible.
   */
  watch(
    subjectId: string,
    listener: (change: StoreChange) => void,
    options: WatchOptions = {},
  ): Subscription {
    const watch = new TimelineWatch({
      subjectId,
      listener,
      watchOptions: options,
      pollIntervalMs: this.#pollIntervalMs,
      fetchPage: (offset, limit, signal) =>
        this.#call<Timeline>({
          method: "GET",
          path: "/v1/timeline",
          query: { subject_id: subjectId, limit, offset },
          signal,
          // The poll loop itself is the retry.
          maxRetries: 0,
        }),
    });
    this.#watches.add(watch);
    return {
      close: () => {
        watch.close();
        this.#watches.delete(watch);
      },
    };
  }

  /** Stops every watch. The client holds no other resources. Idempotent. */
  async close(): Promise<void> {
    for (const watch of this.#watches) watch.close();
    this.#watches.clear();
  }

  /** A write issued after `watch()` must be seen as new, so it waits for the watch's baseline. */
  async #watchesReady(subjectIds: string[]): Promise<void> {
    const subjects = new Set(subjectIds);
    await Promise.all(
      [...this.#watches]
        .filter((watch) => subjects.has(watch.subjectId))
        .map((watch) => watch.ready),
    );
  }

  async #refreshWatches(subjectIds: string[]): Promise<void> {
    const subjects = new Set(subjectIds);
    await Promise.all(
      [...this.#watches]
        .filter((watch) => subjects.has(watch.subjectId))
        .map((watch) => watch.pollNow()),
    );
  }
}

/** The body the SDK sends: `metadata`/`provenance` always, `session_id` only when set (contract §10). */
function episodeBody(input: CreateEpisodeInput) {
  return {
    subjectId: input.subjectId,
    source: input.source,
    type: input.type,
    payload: input.payload,
    metadata: input.metadata ?? {},
    provenance: input.provenance ?? {},
    ...(input.sessionId !== undefined && input.sessionId !== null
      ? { sessionId: input.sessionId }
      : {}),
  };
}
