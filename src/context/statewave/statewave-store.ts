import type {
  ChangePage,
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
  MemoryPage,
  MemoryQuery,
  SearchMemoriesOptions,
  StoreChange,
  Subscription,
  Timeline,
  TimelineOptions,
  WatchOptions,
} from "../context-store.js";
import { InvalidCursorError } from "../errors/invalid-cursor-error.js";
import { StatewaveClient, type StatewaveClientOptions } from "./statewave-client.js";
import { EpisodeLog } from "./statewave-episode-log.js";
import { applyRule, derivedDraftOf, resolveKnowledge, typedMemory } from "./statewave-knowledge.js";
import { searchTyped } from "./statewave-search.js";
import { StatewaveExactReads } from "./statewave-store-reads.js";
import { serverTimeline, sliceTimeline, timelinePaging } from "./statewave-timeline-paging.js";
import { joinSharedPoller, type SubscribeOptions, TimelineWatch } from "./statewave-watch.js";

/** Options of {@link StatewaveStore}: a client's options, or the client to use. */
export type StatewaveStoreOptions = StatewaveClientOptions & {
  /** Use this client instead of creating one (the store then does not own it). */
  client?: StatewaveClient;
};

type Signal = { signal?: AbortSignal };

/** Statewave's search limit (contract §5.5): the widest window a kind fallback can read. */
const maxSearchLimit = 100;

function signalOf(options: Signal | undefined): Signal {
  return options?.signal ? { signal: options.signal } : {};
}

/**
 * The `ContextStore` over a Statewave server (a real one, or `shared-ctx serve`): the one adapter
 * between shared-ctx and the SDK-shaped {@link StatewaveClient}.
 *
 * Beyond translating calls, it gives every reader the same knowledge layer as the embedded store
 * whatever the server did with the episodes (see `statewave-knowledge.ts`): memories are typed from
 * their metadata or, on a real Statewave where the metadata is empty, from their source episode;
 * and the supersede/contradict rule runs client-side for memories typed that way. Source episodes
 * come from a cache filled by this store's own writes, timeline reads and watches; a memory whose
 * episode is not known stays as the server sent it.
 */
/** The listener of a history read only to teach the feed's rule what exists (no replay). */
const ignore = (_change: StoreChange): void => undefined;

export class StatewaveStore implements ContextStore {
  /** The SDK-shaped client underneath. */
  readonly client: StatewaveClient;
  readonly #ownsClient: boolean;
  /** Episode id -> the episode and its position in this store's view of the order. */
  readonly #episodes = new Map<string, { episode: Episode; position: number }>();
  #position = 0;
  /** Every subject's whole episode log, also past a capped server's 100 (see `statewave-episode-log.ts`). */
  readonly #log: EpisodeLog;
  readonly #pollIntervalMs: number;
  /** One poller per subject over this store's own timeline view, shared by every `watch`. */
  readonly #pollers = new Map<string, TimelineWatch>();
  /** Source episode ids a timeline read did not return (past a real v0.7.1's 100): not read again. */
  readonly #unreachable = new Set<string>();
  /** `listMemories`, `getMemory`, `getEpisode`, `changesSince`: exact routes or the fallback. */
  readonly #exactReads: StatewaveExactReads;

  constructor(options: StatewaveStoreOptions = {}) {
    const { client, ...clientOptions } = options;
    this.client = client ?? new StatewaveClient(clientOptions);
    this.#ownsClient = client === undefined;
    this.#log = new EpisodeLog({ client: this.client });
    this.#pollIntervalMs = clientOptions.pollIntervalMs ?? 100;
    this.#exactReads = new StatewaveExactReads({
      client: this.client,
      typed: (subjectId, memories) => this.#typed(subjectId, memories),
      readCapped: (subjectId, signal) => this.#readCapped(subjectId, signal),
      getTimeline: (subjectId, options) => this.getTimeline(subjectId, options),
      knownEpisode: (id) => this.#episodes.get(id)?.episode,
      readLog: (subjectId, signal) => this.#log.read(subjectId, signal),
      remember: (episodes) => this.#remember(episodes),
    });
  }

  /** The server's base URL. */
  get baseUrl(): string {
    return this.client.baseUrl;
  }

  async createEpisode(input: CreateEpisodeInput, options?: Signal): Promise<Episode> {
    await this.#pollers.get(input.subjectId)?.ready;
    const [episode] = await this.#log.write(input.subjectId, [input], options?.signal);
    if (episode === undefined) throw new Error("the server created no episode");
    this.#remember([episode]);
    await this.#pollers.get(input.subjectId)?.pollNow();
    return episode;
  }

  async createEpisodesBatch(
    inputs: CreateEpisodeInput[],
    options?: Signal,
  ): Promise<{ episodesCreated: number; episodes: Episode[] }> {
    const subjects = [...new Set(inputs.map((input) => input.subjectId))];
    if (inputs.length === 0 || inputs.length > 100) {
      // Let the server refuse it with its own 422.
      await this.client.createEpisodesBatch([], signalOf(options));
    }
    await Promise.all(subjects.map((subjectId) => this.#pollers.get(subjectId)?.ready));
    // One batch per subject (all or nothing within each): the log of each subject is its own.
    const bySubject = new Map<string, Episode[]>();
    for (const subjectId of subjects) {
      const own = inputs.filter((input) => input.subjectId === subjectId);
      bySubject.set(subjectId, await this.#log.write(subjectId, own, options?.signal));
    }
    const episodes = inputs.flatMap((input) => {
      const episode = bySubject.get(input.subjectId)?.shift();
      return episode ? [episode] : [];
    });
    this.#remember(episodes);
    await Promise.all(subjects.map((subjectId) => this.#pollers.get(subjectId)?.pollNow()));
    return { episodesCreated: episodes.length, episodes };
  }

  async compileMemories(subjectId: string, options?: Signal): Promise<CompileResult> {
    const result = await this.client.compileMemories(subjectId, signalOf(options));
    const typed = { ...result, memories: await this.#typed(subjectId, result.memories) };
    await this.#pollers.get(subjectId)?.pollNow();
    return typed;
  }

  compileMemoriesAsync(subjectId: string, options?: Signal): Promise<CompileJob> {
    return this.client.compileMemoriesAsync(subjectId, signalOf(options));
  }

  getCompileStatus(jobId: string, options?: Signal): Promise<CompileJob> {
    return this.client.getCompileStatus(jobId, signalOf(options));
  }

  compileMemoriesWait(subjectId: string, options: CompileWaitOptions = {}): Promise<CompileJob> {
    // An option left `undefined` takes the client's default, as one left out would.
    return this.client.compileMemoriesWait(subjectId, {
      pollInterval: options.pollIntervalMs,
      timeout: options.timeoutMs,
      ...signalOf(options),
    });
  }

  /**
   * Active memories, newest first, by shared-ctx kind. A kind of ours the server does not index
   * (a real Statewave files decisions under `episode_summary`) is found by reading the newest
   * memories and typing them here (see `searchTyped`).
   */
  searchMemories(
    subjectId: string,
    options: SearchMemoriesOptions & Signal = {},
  ): Promise<Memory[]> {
    const typed = (memories: readonly Memory[]) => this.#typed(subjectId, memories);
    return searchTyped({ client: this.client, typed }, subjectId, options);
  }

  async getContext(
    subjectId: string,
    task: string,
    options: GetContextOptions & Signal = {},
  ): Promise<ContextBundle> {
    const bundle = await this.client.getContext(
      // The client leaves `undefined` fields out of the body.
      { subjectId, task, maxTokens: options.maxTokens, sessionId: options.sessionId },
      signalOf(options),
    );
    this.#remember(bundle.episodes);
    const facts = await this.#typed(subjectId, bundle.facts);
    return {
      ...bundle,
      facts: facts.filter((memory) => memory.status === "active"),
      procedures: await this.#typed(subjectId, bundle.procedures),
    };
  }

  /**
   * The subject's episodes and memories, oldest first, paged by `limit`/`offset` or `cursor` on
   * every server: `serve`'s cursors through `serve`; offsets of this store's own (`o1.<n>`) on a
   * server without them; on one that ignores paging (a real v0.7.1), from the episode log (past the
   * 100 cap) and its memories from the subject's timeline (the oldest 100) and search (the newest
   * 100 active), see `sliceTimeline`.
   */
  async getTimeline(subjectId: string, options: TimelineOptions & Signal = {}): Promise<Timeline> {
    const page = timelinePaging(options);
    const log = await this.#log.read(subjectId, options.signal);
    if (log !== undefined) {
      // A server that ignores paging cannot continue `serve`'s cursor: refused, not restarted.
      if (page.params.cursor !== undefined) {
        throw new InvalidCursorError(page.params.cursor, "getTimeline");
      }
      const whole = await this.#readCapped(subjectId, options.signal, log);
      return sliceTimeline(subjectId, whole ?? { episodes: [], memories: [] }, page);
    }
    const timeline = await this.client.getTimeline(subjectId, page.params, signalOf(options));
    this.#remember(timeline.episodes);
    const memories = await this.#typed(subjectId, timeline.memories);
    return serverTimeline(subjectId, { ...timeline, memories }, page);
  }

  /**
   * On a capped server, the subject's whole log and its memories (the subject's timeline, the
   * oldest 100, and search, the newest 100 active), oldest first; `undefined` on a server that pages.
   */
  async #readCapped(
    subjectId: string,
    signal?: AbortSignal,
    alreadyRead?: Episode[],
  ): Promise<{ episodes: Episode[]; memories: Memory[] } | undefined> {
    const log = alreadyRead ?? (await this.#log.read(subjectId, signal));
    if (log === undefined) return undefined;
    this.#remember(log);
    const options = signal ? { signal } : {};
    const [own, newest] = await Promise.all([
      this.client.getTimeline(subjectId, options),
      this.client.searchMemories({ subjectId, limit: maxSearchLimit }, options),
    ]);
    const memories = new Map<string, Memory>();
    for (const memory of [...own.memories, ...newest.memories]) {
      if (!memories.has(memory.id)) memories.set(memory.id, memory);
    }
    const ordered = [...memories.values()].sort(
      (a, b) => Date.parse(a.createdAt) - Date.parse(b.createdAt),
    );
    return {
      episodes: log,
      memories: await this.#typed(subjectId, ordered),
    };
  }

  /**
   * Exact through `serve` (`GET /v1/memories`); over a real Statewave, the best its API allows
   * (see `StatewaveExactReads` and docs/store.md "Exact reads over a real Statewave").
   */
  listMemories(subjectId: string, query: MemoryQuery & Signal = {}): Promise<MemoryPage> {
    return this.#exactReads.listMemories(subjectId, query);
  }

  getMemory(subjectId: string, memoryId: string, options?: Signal): Promise<Memory | null> {
    return this.#exactReads.getMemory(subjectId, memoryId, options);
  }

  getEpisode(subjectId: string, episodeId: string, options?: Signal): Promise<Episode | null> {
    return this.#exactReads.getEpisode(subjectId, episodeId, options);
  }

  changesSince(
    subjectId: string,
    cursor: string | null,
    options: { limit?: number } & Signal = {},
  ): Promise<ChangePage> {
    return this.#exactReads.changesSince(subjectId, cursor, options);
  }

  listSubjects(options: ListSubjectsOptions & Signal = {}): Promise<ListSubjectsResult> {
    return this.client.listSubjects(
      // An undefined one is left out of the query (statewave-transport.ts), as if not passed.
      { limit: options.limit, offset: options.offset },
      signalOf(options),
    );
  }

  async deleteSubject(subjectId: string, options?: Signal): Promise<DeleteSubjectResult> {
    const result = await this.client.deleteSubject(subjectId, signalOf(options));
    for (const segment of this.#log.forget(subjectId)) {
      const deleted = await this.client.deleteSubject(segment, signalOf(options));
      if (deleted.episodesDeleted === 0) break;
    }
    this.#pollers.get(subjectId)?.reset();
    for (const [id, entry] of this.#episodes) {
      if (entry.episode.subjectId === subjectId) this.#episodes.delete(id);
    }
    return result;
  }

  /**
   * The client's shared poller, with memories typed as everywhere else; for memories typed
   * client-side, the supersedes and contradictions the embedded compile would have made are
   * delivered too (a superseded memory as a `memory` change with status `superseded`).
   */
  watch(
    subjectId: string,
    listener: (change: StoreChange) => void,
    options: WatchOptions = {},
  ): Subscription {
    /** Client-side typed memories of this feed, by id, as last delivered. */
    const ledger = new Map<string, Memory>();
    // A change can reach this feed twice: a replay delivers the history through `onHistory`, and
    // the poller also delivers what in that history was written since the call (by time). Each
    // episode, and each state of an untyped memory, is delivered once.
    const deliveredEpisodes = new Set<string>();
    const deliveredUntyped = new Map<string, string>();
    const onChange = (change: StoreChange, deliver: (change: StoreChange) => void) => {
      if (change.type === "episode") {
        this.#remember([change.episode]);
        if (deliveredEpisodes.has(change.episode.id)) return;
        if (deliver !== ignore) deliveredEpisodes.add(change.episode.id);
        deliver(change);
        return;
      }
      const memory = typedMemory(change.memory, (id) => this.#episodes.get(id)?.episode);
      const known = ledger.get(memory.id);
      if (known !== undefined) {
        // A status change of a memory this feed already delivered, or nothing new: Statewave's own
        // word-overlap supersede, or the timeline view's copy of a supersede this ledger already
        // made (that copy is no longer typed client-side, so it must be looked up before that test).
        if (known.status === memory.status) return;
        ledger.set(memory.id, memory);
        deliver({ type: "memory", memory });
        return;
      }
      if (derivedDraftOf(memory) === undefined) {
        const state = `${memory.status}|${memory.validTo ?? ""}|${memory.updatedAt}`;
        if (deliveredUntyped.get(memory.id) === state) return;
        if (deliver !== ignore) deliveredUntyped.set(memory.id, state);
        deliver({ type: "memory", memory });
        return;
      }
      const outcome = applyRule(memory, [...ledger.values()]);
      for (const old of outcome.superseded) {
        ledger.set(old.id, old);
        deliver({ type: "memory", memory: old });
      }
      ledger.set(memory.id, outcome.memory);
      deliver({ type: "memory", memory: outcome.memory });
    };
    const replay = options.replay ?? false;
    return this.#subscribe(subjectId, (change) => onChange(change, listener), {
      ...options,
      replay: false,
      // What existed before this watch: the rule must know it; it is delivered only for a replay.
      onHistory: (history) => {
        for (const change of history) onChange(change, replay ? listener : ignore);
      },
    });
  }

  /** Joins (or starts) the subject's poller over this store's own paged timeline view. */
  #subscribe(
    subjectId: string,
    listener: (change: StoreChange) => void,
    options: SubscribeOptions,
  ): Subscription {
    return joinSharedPoller(
      this.#pollers,
      subjectId,
      () =>
        new TimelineWatch({
          subjectId,
          pollIntervalMs: this.#pollIntervalMs,
          fetchPage: (offset, limit, signal) =>
            this.getTimeline(subjectId, { offset, limit, signal }),
          // On a capped server the log is read whole anyway: once per round, not once per page.
          readAll: (signal) => this.#readCapped(subjectId, signal),
          // Through `serve`: one request a round, for what changed since the last one.
          readChanges: (cursor, signal) =>
            this.#exactReads.feedChanges(subjectId, cursor, { limit: 500, signal }),
        }),
      listener,
      options,
    );
  }

  /** Stops the watches; first makes sure every episode written here is kept in its log. */
  async close(): Promise<void> {
    await this.#log.flush().catch(() => undefined);
    for (const poller of this.#pollers.values()) poller.close();
    this.#pollers.clear();
    if (this.#ownsClient) await this.client.close();
  }

  #remember(episodes: readonly Episode[]): void {
    for (const episode of episodes) {
      if (this.#episodes.has(episode.id)) continue;
      this.#position += 1;
      this.#episodes.set(episode.id, { episode, position: this.#position });
    }
  }

  /** Memories typed; the rule applied among those typed here. Reads the timeline once for unknown episodes. */
  async #typed(subjectId: string, memories: readonly Memory[]): Promise<Memory[]> {
    const unknown = memories
      .filter(
        (memory) => memory.kind === "episode_summary" && Object.keys(memory.metadata).length === 0,
      )
      .flatMap((memory) => memory.sourceEpisodeIds)
      .filter((id) => !this.#episodes.has(id) && !this.#unreachable.has(id));
    if (unknown.length > 0) {
      // Another writer's episode: the timeline (the log, past 100) is the only way to read it back.
      const log = await this.#log.read(subjectId);
      this.#remember(
        log ?? (await this.client.getTimeline(subjectId, { limit: 100_000 })).episodes,
      );
      const unread = unknown.filter((id) => !this.#episodes.has(id));
      for (const id of unread) this.#unreachable.add(id);
    }
    const typed = memories.map((memory) =>
      typedMemory(memory, (id) => this.#episodes.get(id)?.episode),
    );
    return resolveKnowledge(typed, (memory) => this.#orderOf(memory));
  }

  #orderOf(memory: Memory): number {
    const id = memory.sourceEpisodeIds[0];
    return (id === undefined ? undefined : this.#episodes.get(id)?.position) ?? 0;
  }
}
