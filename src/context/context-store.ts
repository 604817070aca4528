/**
 * The store every agent reads before it acts and publishes to after it decides.
 *
 * The surface and the camelCase shapes are those of the official Statewave TypeScript SDK
 * (`@statewavedev/sdk`, see `../shared/statewave-contract.md` §4, §5, §10); the SDK's own call
 * shapes (object parameters, `{ memories }`) are `StatewaveClient`'s. Implementations:
 * `EmbeddedStore` (better-sqlite3, no set-up) and `StatewaveStore` (HTTP through a
 * `StatewaveClient`: a real Statewave server or `shared-ctx serve`).
 */

/** Any JSON value. `payload`, `metadata` and `provenance` are opaque JSON objects. */
export type JsonValue =
  | string
  | number
  | boolean
  | null
  | JsonValue[]
  | { [key: string]: JsonValue };
/** A JSON object, as `payload`, `metadata` and `provenance` are on the wire. */
export type JsonObject = { [key: string]: JsonValue };

/** Something an agent observed or decided, appended to a subject. Immutable once created. */
export interface Episode {
  id: string;
  subjectId: string;
  /** Who wrote it: for shared-ctx, the agent id. */
  source: string;
  /** What it is: `architectural_decision`, `implementation_note`, `state_update`, `message`, … */
  type: string;
  payload: JsonObject;
  metadata: JsonObject;
  provenance: JsonObject;
  sessionId?: string | null;
  /** ISO-8601 UTC. */
  createdAt: string;
}

/** What `createEpisode` takes. */
export interface CreateEpisodeInput {
  subjectId: string;
  source: string;
  type: string;
  payload: JsonObject;
  /** @default {} */
  metadata?: JsonObject;
  /** @default {} */
  provenance?: JsonObject;
  sessionId?: string | null;
  /**
   * De-duplication key, Statewave v1.1's `idempotency_key`: a create with a key this subject
   * already has stores nothing and returns the episode stored first (whatever else differs), so a
   * retry after a timeout never stores twice. Unique per (tenant, subject); 1..256 characters.
   * Honoured by the embedded and Postgres stores and `shared-ctx serve`; a Statewave v0.7.1
   * server ignores it (contract §7).
   * @default none: every create stores a new episode
   */
  idempotencyKey?: string | null;
}

/** Statewave's memory kinds plus shared-ctx's typed agent kinds; any string is allowed. */
export type MemoryKind =
  | "profile_fact"
  | "episode_summary"
  | "procedure"
  | "artifact_ref"
  | "architectural_decision"
  | "implementation_note"
  | "review_finding"
  | (string & {});

export type MemoryStatus = "active" | "superseded" | "deleted";

/** A typed, confidence-scored statement compiled from one or more episodes. */
export interface Memory {
  id: string;
  subjectId: string;
  kind: MemoryKind;
  content: string;
  summary: string;
  /** 0..1 */
  confidence: number;
  validFrom: string;
  /** Set when a newer memory superseded this one. */
  validTo: string | null;
  sourceEpisodeIds: string[];
  metadata: JsonObject;
  status: MemoryStatus;
  createdAt: string;
  updatedAt: string;
}

export interface CompileResult {
  subjectId: string;
  memoriesCreated: number;
  memories: Memory[];
}

export type CompileJobStatus = "pending" | "running" | "completed" | "failed";

export interface CompileJob {
  jobId: string;
  status: CompileJobStatus;
  subjectId: string;
  memoriesCreated?: number;
  memories?: Memory[];
  error?: string;
}

export interface CompileWaitOptions {
  /** @default 500 */
  pollIntervalMs?: number;
  /** @default 60000 */
  timeoutMs?: number;
  signal?: AbortSignal;
}

export interface SearchMemoriesOptions {
  kind?: string;
  /** Case-insensitive substring filter on the content. */
  q?: string;
  semantic?: boolean;
  /** 0..100. @default 20 */
  limit?: number;
}

export interface GetContextOptions {
  /** Token budget for the assembled context. @default 4000 */
  maxTokens?: number;
  sessionId?: string;
}

/** The context ranked for one task. `provenance` keeps snake_case inner keys, as the SDK does. */
export interface ContextBundle {
  subjectId: string;
  task: string;
  /** Included memories that are not procedures (decisions, notes, findings, summaries), in score order. */
  facts: Memory[];
  episodes: Episode[];
  procedures: Memory[];
  provenance: {
    fact_ids: string[];
    summary_ids: string[];
    procedure_ids: string[];
    episode_ids: string[];
  };
  assembledContext: string;
  tokenEstimate: number;
  sessions: Array<{ sessionId: string; episodeCount: number; firstAt: string; lastAt: string }>;
}

export interface TimelineOptions {
  /**
   * At most this many episodes and this many memories, oldest first. Statewave caps both at 100;
   * the embedded store and `shared-ctx serve` accept more. @default 100
   */
  limit?: number;
  /**
   * Skip this many of the oldest episodes (and memories). Costs a walk over what it skips: page
   * with `cursor` instead. Not together with a `cursor`. @default 0
   */
  offset?: number;
  /**
   * Where the page starts: the previous page's `nextCursor` (opaque). Each list continues after
   * the last item of its own that page returned, so items written since are never skipped or
   * repeated. @default null (from the oldest)
   */
  cursor?: string | null;
  /**
   * Statewave >= 1.5's `newest_first`: the page is taken from the newest end (`offset` skips the
   * newest rows), its rows still oldest first. Not together with a `cursor`; such a page has no
   * `nextCursor` (page on with `offset`). @default false
   */
  newestFirst?: boolean;
}

export interface Timeline {
  subjectId: string;
  /** Oldest first, in one total order. */
  episodes: Episode[];
  /** Oldest first, every status (superseded ones too). */
  memories: Memory[];
  /**
   * Where the next page starts (`TimelineOptions.cursor`), or null when neither list has more.
   * Set by the embedded and Postgres stores and `shared-ctx serve`; a Statewave v0.7.1 server
   * (which has no paging) gives none, so `undefined` means "unknown".
   */
  nextCursor?: string | null;
  /** Whether more episodes lie beyond this page (older ones for `newestFirst`); undefined: unknown. */
  episodesHasMore?: boolean;
  /** Whether more memories lie beyond this page (older ones for `newestFirst`); undefined: unknown. */
  memoriesHasMore?: boolean;
}

/**
 * An exact, indexed query over a subject's memories: complete when paged to the end (see
 * `listAllMemories`). Every filter is an exact match, never a ranking; the filters combine with AND.
 */
export interface MemoryQuery {
  /** The memory's kind, e.g. `architectural_decision`. @default any kind */
  kind?: string;
  /**
   * `metadata.target` equals one of these (exact, case-sensitive); 1..100 targets. An empty list
   * matches nothing. @default any target (and memories without one)
   */
  targets?: readonly string[];
  /** `metadata.target` starts with this (exact, case-sensitive), e.g. `modules/`. */
  targetPrefix?: string;
  /**
   * Only memories without a target (a decision that names what it is about only in its words).
   * Not together with `targets` or `targetPrefix`. @default false
   */
  untargeted?: boolean;
  /** @default "active" */
  status?: MemoryStatus | "any";
  /** Page size, 1..500. @default 100 */
  limit?: number;
  /** From the previous page's `nextCursor` (opaque). @default null (the newest) */
  cursor?: string | null;
}

/** One page of `listMemories`: newest first. */
export interface MemoryPage {
  memories: Memory[];
  /** Pass as `MemoryQuery.cursor` for the next page; null when this page is the last. */
  nextCursor: string | null;
}

/** One page of `changesSince`. */
export interface ChangePage {
  /** Oldest first: the page's new episodes (in seq order), then its memory changes (in order). */
  changes: StoreChange[];
  /** Where the next call starts; pass it back even when `hasMore` is false (later writes). */
  cursor: string;
  /** Whether more changes were already waiting past this page. */
  hasMore: boolean;
}

export interface ListSubjectsOptions {
  /** 1..200. @default 50 */
  limit?: number;
  /** @default 0 */
  offset?: number;
}

export interface SubjectSummary {
  subjectId: string;
  episodeCount: number;
  memoryCount: number;
}

export interface ListSubjectsResult {
  subjects: SubjectSummary[];
  /** The number of subjects overall (Statewave v0.7.1 reports the page length). */
  total: number;
}

export interface DeleteSubjectResult {
  subjectId: string;
  episodesDeleted: number;
  memoriesDeleted: number;
}

/** One change delivered by `watch`: an episode appended, or a memory created or changed (e.g. superseded). */
export type StoreChange =
  | { type: "episode"; episode: Episode }
  | { type: "memory"; memory: Memory };

export interface WatchOptions {
  /**
   * Deliver the subject's existing episodes and memories first, then the new ones.
   * @default false
   */
  replay?: boolean;
  /** Called when the feed fails (e.g. the server went away); the feed keeps retrying. */
  onError?: (error: unknown) => void;
}

/** Stops a `watch` feed. Idempotent. */
export interface Subscription {
  close(): void;
}

/** The shared store's contract, implemented by `EmbeddedStore` and `StatewaveStore`. */
export interface ContextStore {
  /** Appends one episode. Once this resolves, the episode is durable. */
  createEpisode(input: CreateEpisodeInput, options?: { signal?: AbortSignal }): Promise<Episode>;
  /**
   * Appends 1..100 episodes atomically, returned in request order.
   * @throws when the batch is empty or has more than 100 items; nothing is written then.
   */
  createEpisodesBatch(
    inputs: CreateEpisodeInput[],
    options?: { signal?: AbortSignal },
  ): Promise<{ episodesCreated: number; episodes: Episode[] }>;
  /** Compiles the subject's uncompiled episodes into memories. Idempotent. */
  compileMemories(subjectId: string, options?: { signal?: AbortSignal }): Promise<CompileResult>;
  /** Starts a compile job and returns at once. */
  compileMemoriesAsync(subjectId: string, options?: { signal?: AbortSignal }): Promise<CompileJob>;
  getCompileStatus(jobId: string, options?: { signal?: AbortSignal }): Promise<CompileJob>;
  /** Starts a compile job and polls it until it completes or fails. */
  compileMemoriesWait(subjectId: string, options?: CompileWaitOptions): Promise<CompileJob>;
  /** Active memories of the subject, newest first. */
  searchMemories(
    subjectId: string,
    options?: SearchMemoriesOptions & { signal?: AbortSignal },
  ): Promise<Memory[]>;
  /** The subject's active memories ranked for `task`, within a token budget. Deterministic. */
  getContext(
    subjectId: string,
    task: string,
    options?: GetContextOptions & { signal?: AbortSignal },
  ): Promise<ContextBundle>;
  getTimeline(
    subjectId: string,
    options?: TimelineOptions & { signal?: AbortSignal },
  ): Promise<Timeline>;
  /**
   * The subject's memories matching `query`, newest first, one page at a time, from an index:
   * paged to the end (`nextCursor` null) the answer is complete, whatever the history's size.
   * Writes between pages never make a page repeat or skip an older memory.
   * @throws StoreValidationError for a bad filter or limit; InvalidCursorError for a cursor this
   *   store did not hand out
   */
  listMemories(
    subjectId: string,
    query?: MemoryQuery & { signal?: AbortSignal },
  ): Promise<MemoryPage>;
  /** The subject's memory with this id (any status), or null when the subject has none such. */
  getMemory(
    subjectId: string,
    memoryId: string,
    options?: { signal?: AbortSignal },
  ): Promise<Memory | null>;
  /** The subject's episode with this id, or null when the subject has none such. */
  getEpisode(
    subjectId: string,
    episodeId: string,
    options?: { signal?: AbortSignal },
  ): Promise<Episode | null>;
  /**
   * What changed in the subject after `cursor` (null: from the start), oldest first, one bounded
   * page: new episodes and new or changed memories (a supersede delivers the memory again).
   * @param options.limit at most this many episodes and this many memory changes, 1..500 (@default 100)
   * @throws InvalidCursorError for a cursor this store did not hand out
   */
  changesSince(
    subjectId: string,
    cursor: string | null,
    options?: { limit?: number; signal?: AbortSignal },
  ): Promise<ChangePage>;
  listSubjects(
    options?: ListSubjectsOptions & { signal?: AbortSignal },
  ): Promise<ListSubjectsResult>;
  deleteSubject(
    subjectId: string,
    options?: { signal?: AbortSignal },
  ): Promise<DeleteSubjectResult>;
  /**
   * A change feed: new episodes and memories of the subject, in order, to `listener`.
   * In-process writes are delivered at once; writes by other processes sharing the store are
   * delivered by polling (within 100 ms on the embedded store).
   */
  watch(
    subjectId: string,
    listener: (change: StoreChange) => void,
    options?: WatchOptions,
  ): Subscription;
  /** Releases the store (database handle, timers). Idempotent. */
  close(): Promise<void>;
}
