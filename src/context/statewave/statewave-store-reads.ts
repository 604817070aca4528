import type {
  ChangePage,
  Episode,
  Memory,
  MemoryPage,
  MemoryQuery,
  StoreChange,
  Timeline,
  TimelineOptions,
} from "../context-store.js";
import type { StatewaveClient } from "./statewave-client.js";
import { changesFromTimeline, episodeAmong, pageOfVisible } from "./statewave-exact-fallback.js";
import { isMissingRoute } from "./statewave-exact-reads.js";

type Signal = { signal?: AbortSignal };

function signalOf(options: Signal | undefined): Signal {
  return options?.signal ? { signal: options.signal } : {};
}

/** What `StatewaveExactReads` uses of its `StatewaveStore`. */
export interface StatewaveReadsHost {
  client: StatewaveClient;
  /** Memories typed as everywhere else in the store. */
  typed(subjectId: string, memories: readonly Memory[]): Promise<Memory[]>;
  /** On a capped server the whole log and the memories it can see; undefined on one that pages. */
  readCapped(
    subjectId: string,
    signal?: AbortSignal,
  ): Promise<{ episodes: Episode[]; memories: Memory[] } | undefined>;
  getTimeline(subjectId: string, options: TimelineOptions & Signal): Promise<Timeline>;
  knownEpisode(id: string): Episode | undefined;
  /** The subject's whole episode log on a capped server; undefined on one that pages. */
  readLog(subjectId: string, signal?: AbortSignal): Promise<Episode[] | undefined>;
  remember(episodes: readonly Episode[]): void;
}

/**
 * `StatewaveStore`'s exact reads: through `serve`'s routes (`GET /v1/memories`, `/v1/memories/{id}`,
 * `/v1/episodes/{id}`, `/v1/changes`), exact; on a server without them (a real Statewave answers
 * 404 `http_error` or 405, found once and remembered), the best its API allows over what this
 * store can read (statewave-exact-fallback.ts).
 */
export class StatewaveExactReads {
  readonly #host: StatewaveReadsHost;
  /** Whether the server has `serve`'s exact routes; undefined until one read found out. */
  #exactRoutes: boolean | undefined;

  constructor(host: StatewaveReadsHost) {
    this.#host = host;
  }

  async listMemories(subjectId: string, query: MemoryQuery & Signal): Promise<MemoryPage> {
    const { signal, ...params } = query;
    // No query string says "one of no targets": that matches nothing, on every server.
    if (params.targets?.length === 0) return pageOfVisible([], query);
    const page = await this.#exact(() =>
      this.#host.client.listMemories({ subjectId, ...params }, signalOf(query)),
    );
    if (page !== undefined) {
      const memories = await this.#host.typed(subjectId, page.memories);
      return { memories, nextCursor: page.nextCursor };
    }
    return pageOfVisible(await this.#visibleMemories(subjectId, signal), query);
  }

  async getMemory(subjectId: string, memoryId: string, options?: Signal): Promise<Memory | null> {
    const found = await this.#exact(() =>
      this.#host.client.getMemory(subjectId, memoryId, signalOf(options)),
    );
    if (found === null) return null;
    if (found !== undefined) return (await this.#host.typed(subjectId, [found]))[0] ?? null;
    const visible = await this.#visibleMemories(subjectId, options?.signal);
    return visible.find((memory) => memory.id === memoryId) ?? null;
  }

  async getEpisode(
    subjectId: string,
    episodeId: string,
    options?: Signal,
  ): Promise<Episode | null> {
    const found = await this.#exact(() =>
      this.#host.client.getEpisode(subjectId, episodeId, signalOf(options)),
    );
    if (found !== undefined) return found;
    const known = this.#host.knownEpisode(episodeId);
    if (known?.subjectId === subjectId) return known;
    const log = await this.#host.readLog(subjectId, options?.signal);
    const episodes =
      log ??
      (await this.#host.client.getTimeline(subjectId, { limit: 100_000 }, signalOf(options)))
        .episodes;
    this.#host.remember(episodes);
    return episodeAmong(episodes, subjectId, episodeId);
  }

  async changesSince(
    subjectId: string,
    cursor: string | null,
    options: { limit?: number } & Signal,
  ): Promise<ChangePage> {
    const page = await this.#exact(() =>
      this.#host.client.changesSince(subjectId, cursor, options),
    );
    if (page !== undefined) {
      const changes = await Promise.all(
        page.changes.map(async (change): Promise<StoreChange> => {
          if (change.type === "episode") return change;
          const [memory] = await this.#host.typed(subjectId, [change.memory]);
          return { type: "memory", memory: memory ?? change.memory };
        }),
      );
      return { ...page, changes };
    }
    return changesFromTimeline(
      cursor,
      options.limit,
      async (episodeOffset, memoryOffset, limit) => {
        const read = (offset: number) =>
          this.#host.getTimeline(subjectId, { offset, limit, ...signalOf(options) });
        const episodes = await read(episodeOffset);
        const memories = memoryOffset === episodeOffset ? episodes : await read(memoryOffset);
        return { subjectId, episodes: episodes.episodes, memories: memories.memories };
      },
    );
  }

  /**
   * `changesSince` through `serve`'s change feed only, for a watch: undefined on a server without
   * one (the watch then polls the timeline, which, unlike the fallback, sees a supersede).
   */
  async feedChanges(
    subjectId: string,
    cursor: string | null,
    options: { limit?: number } & Signal,
  ): Promise<ChangePage | undefined> {
    const page = await this.#exact(() =>
      this.#host.client.changesSince(subjectId, cursor, options),
    );
    if (page === undefined) return undefined;
    const changes = await Promise.all(
      page.changes.map(async (change): Promise<StoreChange> => {
        if (change.type === "episode") return change;
        const [memory] = await this.#host.typed(subjectId, [change.memory]);
        return { type: "memory", memory: memory ?? change.memory };
      }),
    );
    return { ...page, changes };
  }

  /**
   * `read` through `serve`'s exact routes; undefined when the server has none, remembered so
   * later reads go straight to the fallback.
   */
  async #exact<T>(read: () => Promise<T>): Promise<T | undefined> {
    if (this.#exactRoutes === false) return undefined;
    try {
      const result = await read();
      this.#exactRoutes = true;
      return result;
    } catch (error) {
      if (this.#exactRoutes === true || !isMissingRoute(error)) throw error;
      this.#exactRoutes = false;
      return undefined;
    }
  }

  /** Every memory this store can read on a server without the exact routes, oldest first. */
  async #visibleMemories(subjectId: string, signal?: AbortSignal): Promise<Memory[]> {
    const capped = await this.#host.readCapped(subjectId, signal);
    if (capped !== undefined) return capped.memories;
    const memories: Memory[] = [];
    for (let offset = 0; ; offset += 100) {
      const page = await this.#host.getTimeline(subjectId, {
        offset,
        limit: 100,
        ...(signal ? { signal } : {}),
      });
      memories.push(...page.memories);
      if (page.memories.length < 100) return memories;
    }
  }
}
