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
} from "../context-store.js";
import type { EmbeddedStoreCore } from "./store-core.js";

/**
 * The `ContextStore` of one tenant over a shared `EmbeddedStoreCore`. The work is synchronous
 * (better-sqlite3); the methods are async for the interface, so errors arrive as rejections.
 */
export class TenantStoreView implements ContextStore {
  /** @internal */
  protected readonly core: EmbeddedStoreCore;
  /** The tenant every call is scoped to; `null` is the default tenant. */
  readonly tenantId: string | null;

  constructor(core: EmbeddedStoreCore, tenantId: string | null) {
    this.core = core;
    this.tenantId = tenantId;
  }

  async createEpisode(
    input: CreateEpisodeInput,
    options?: { signal?: AbortSignal },
  ): Promise<Episode> {
    if (this.core.groupCommit) {
      return this.core.createEpisodeGrouped(this.tenantId, input, options?.signal);
    }
    return this.core.createEpisode(this.tenantId, input, options?.signal);
  }

  async createEpisodesBatch(
    inputs: CreateEpisodeInput[],
    options?: { signal?: AbortSignal },
  ): Promise<{ episodesCreated: number; episodes: Episode[] }> {
    return this.core.createEpisodesBatch(this.tenantId, inputs, options?.signal);
  }

  async compileMemories(
    subjectId: string,
    options?: { signal?: AbortSignal },
  ): Promise<CompileResult> {
    return this.core.compileMemories(this.tenantId, subjectId, options?.signal);
  }

  async compileMemoriesAsync(
    subjectId: string,
    options?: { signal?: AbortSignal },
  ): Promise<CompileJob> {
    return this.core.compileMemoriesAsync(this.tenantId, subjectId, options?.signal);
  }

  async getCompileStatus(jobId: string, options?: { signal?: AbortSignal }): Promise<CompileJob> {
    return this.core.getCompileStatus(this.tenantId, jobId, options?.signal);
  }

  compileMemoriesWait(subjectId: string, options?: CompileWaitOptions): Promise<CompileJob> {
    return this.core.compileMemoriesWait(this.tenantId, subjectId, options);
  }

  async searchMemories(
    subjectId: string,
    options?: SearchMemoriesOptions & { signal?: AbortSignal },
  ): Promise<Memory[]> {
    return this.core.searchMemories(this.tenantId, subjectId, options);
  }

  async getContext(
    subjectId: string,
    task: string,
    options?: GetContextOptions & { signal?: AbortSignal },
  ): Promise<ContextBundle> {
    return this.core.getContext(this.tenantId, subjectId, task, options);
  }

  async getTimeline(
    subjectId: string,
    options?: TimelineOptions & { signal?: AbortSignal },
  ): Promise<Timeline> {
    return this.core.getTimeline(this.tenantId, subjectId, options);
  }

  async listSubjects(
    options?: ListSubjectsOptions & { signal?: AbortSignal },
  ): Promise<ListSubjectsResult> {
    return this.core.listSubjects(this.tenantId, options);
  }

  async deleteSubject(
    subjectId: string,
    options?: { signal?: AbortSignal },
  ): Promise<DeleteSubjectResult> {
    return this.core.deleteSubject(this.tenantId, subjectId, options?.signal);
  }

  watch(
    subjectId: string,
    listener: (change: StoreChange) => void,
    options?: WatchOptions,
  ): Subscription {
    return this.core.watch(this.tenantId, subjectId, listener, options);
  }

  /** A view does not own the database: closing it does nothing. Close the `EmbeddedStore`. */
  async close(): Promise<void> {}
}
