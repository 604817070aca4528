import { waitForCompileJob } from "./compile-jobs.js";
import type * as Store from "./context-store.js";
import { requireTenantId } from "./validate-input.js";

type Tenant = string | null;
/** A value now (better-sqlite3 is synchronous) or later (a Postgres pool). */
type Eventually<T> = T | Promise<T>;

/**
 * What a store's core does for any tenant: the `ContextStore` operations with the tenant first.
 * One core (one database file, one pool) serves every tenant's view.
 */
export interface TenantScopedCore {
  createEpisode(
    tenant: Tenant,
    input: Store.CreateEpisodeInput,
    signal?: AbortSignal,
  ): Eventually<Store.Episode>;
  createEpisodesBatch(
    tenant: Tenant,
    inputs: Store.CreateEpisodeInput[],
    signal?: AbortSignal,
  ): Eventually<{ episodesCreated: number; episodes: Store.Episode[] }>;
  compileMemories(
    tenant: Tenant,
    subjectId: string,
    signal?: AbortSignal,
  ): Eventually<Store.CompileResult>;
  compileMemoriesAsync(
    tenant: Tenant,
    subjectId: string,
    signal?: AbortSignal,
  ): Eventually<Store.CompileJob>;
  getCompileStatus(
    tenant: Tenant,
    jobId: string,
    signal?: AbortSignal,
  ): Eventually<Store.CompileJob>;
  /** A compile job's own promise while it runs in this process (`compileMemoriesAsync`'s). */
  runningJob(jobId: string): Promise<void> | undefined;
  searchMemories(
    tenant: Tenant,
    subjectId: string,
    options?: Store.SearchMemoriesOptions & { signal?: AbortSignal },
  ): Eventually<Store.Memory[]>;
  getContext(
    tenant: Tenant,
    subjectId: string,
    task: string,
    options?: Store.GetContextOptions & { signal?: AbortSignal },
  ): Eventually<Store.ContextBundle>;
  getTimeline(
    tenant: Tenant,
    subjectId: string,
    options?: Store.TimelineOptions & { signal?: AbortSignal },
  ): Eventually<Store.Timeline>;
  listMemories(
    tenant: Tenant,
    subjectId: string,
    query?: Store.MemoryQuery & { signal?: AbortSignal },
  ): Eventually<Store.MemoryPage>;
  getMemory(
    tenant: Tenant,
    subjectId: string,
    memoryId: string,
    signal?: AbortSignal,
  ): Eventually<Store.Memory | null>;
  getEpisode(
    tenant: Tenant,
    subjectId: string,
    episodeId: string,
    signal?: AbortSignal,
  ): Eventually<Store.Episode | null>;
  changesSince(
    tenant: Tenant,
    subjectId: string,
    cursor: string | null,
    options?: { limit?: number; signal?: AbortSignal },
  ): Eventually<Store.ChangePage>;
  listSubjects(
    tenant: Tenant,
    options?: Store.ListSubjectsOptions & { signal?: AbortSignal },
  ): Eventually<Store.ListSubjectsResult>;
  deleteSubject(
    tenant: Tenant,
    subjectId: string,
    signal?: AbortSignal,
  ): Eventually<Store.DeleteSubjectResult>;
  watch(
    tenant: Tenant,
    subjectId: string,
    listener: (change: Store.StoreChange) => void,
    options?: Store.WatchOptions,
  ): Store.Subscription;
}

/**
 * The `ContextStore` of one tenant over a shared core (the embedded store's database, Postgres'
 * pool). The methods are async for the interface, so a synchronous core's errors arrive as
 * rejections too. A view does not own the core: closing it does nothing; close the store.
 */
export class TenantView<Core extends TenantScopedCore> implements Store.ContextStore {
  /** @internal */
  protected readonly core: Core;
  /** The tenant every call is scoped to; `null` is the default tenant. */
  readonly tenantId: string | null;

  /** @throws StoreValidationError when `tenantId` breaks the id rule (`requireTenantId`). */
  constructor(core: Core, tenantId: string | null) {
    this.core = core;
    // Checked here, once for every store: the same tenant rule on SQLite and Postgres.
    this.tenantId = requireTenantId(tenantId);
  }

  async createEpisode(
    input: Store.CreateEpisodeInput,
    options?: { signal?: AbortSignal },
  ): Promise<Store.Episode> {
    return this.core.createEpisode(this.tenantId, input, options?.signal);
  }

  async createEpisodesBatch(
    inputs: Store.CreateEpisodeInput[],
    options?: { signal?: AbortSignal },
  ): Promise<{ episodesCreated: number; episodes: Store.Episode[] }> {
    return this.core.createEpisodesBatch(this.tenantId, inputs, options?.signal);
  }

  async compileMemories(
    subjectId: string,
    options?: { signal?: AbortSignal },
  ): Promise<Store.CompileResult> {
    return this.core.compileMemories(this.tenantId, subjectId, options?.signal);
  }

  async compileMemoriesAsync(
    subjectId: string,
    options?: { signal?: AbortSignal },
  ): Promise<Store.CompileJob> {
    return this.core.compileMemoriesAsync(this.tenantId, subjectId, options?.signal);
  }

  async getCompileStatus(
    jobId: string,
    options?: { signal?: AbortSignal },
  ): Promise<Store.CompileJob> {
    return this.core.getCompileStatus(this.tenantId, jobId, options?.signal);
  }

  compileMemoriesWait(
    subjectId: string,
    options: Store.CompileWaitOptions = {},
  ): Promise<Store.CompileJob> {
    return waitForCompileJob(
      {
        start: () => this.core.compileMemoriesAsync(this.tenantId, subjectId, options.signal),
        status: (jobId) => this.core.getCompileStatus(this.tenantId, jobId, options.signal),
        running: (jobId) => this.core.runningJob(jobId),
      },
      options,
    );
  }

  async searchMemories(
    subjectId: string,
    options?: Store.SearchMemoriesOptions & { signal?: AbortSignal },
  ): Promise<Store.Memory[]> {
    return this.core.searchMemories(this.tenantId, subjectId, options);
  }

  async getContext(
    subjectId: string,
    task: string,
    options?: Store.GetContextOptions & { signal?: AbortSignal },
  ): Promise<Store.ContextBundle> {
    return this.core.getContext(this.tenantId, subjectId, task, options);
  }

  async getTimeline(
    subjectId: string,
    options?: Store.TimelineOptions & { signal?: AbortSignal },
  ): Promise<Store.Timeline> {
    return this.core.getTimeline(this.tenantId, subjectId, options);
  }

  async listMemories(
    subjectId: string,
    query?: Store.MemoryQuery & { signal?: AbortSignal },
  ): Promise<Store.MemoryPage> {
    return this.core.listMemories(this.tenantId, subjectId, query);
  }

  async getMemory(
    subjectId: string,
    memoryId: string,
    options?: { signal?: AbortSignal },
  ): Promise<Store.Memory | null> {
    return this.core.getMemory(this.tenantId, subjectId, memoryId, options?.signal);
  }

  async getEpisode(
    subjectId: string,
    episodeId: string,
    options?: { signal?: AbortSignal },
  ): Promise<Store.Episode | null> {
    return this.core.getEpisode(this.tenantId, subjectId, episodeId, options?.signal);
  }

  async changesSince(
    subjectId: string,
    cursor: string | null,
    options?: { limit?: number; signal?: AbortSignal },
  ): Promise<Store.ChangePage> {
    return this.core.changesSince(this.tenantId, subjectId, cursor, options);
  }

  async listSubjects(
    options?: Store.ListSubjectsOptions & { signal?: AbortSignal },
  ): Promise<Store.ListSubjectsResult> {
    return this.core.listSubjects(this.tenantId, options);
  }

  async deleteSubject(
    subjectId: string,
    options?: { signal?: AbortSignal },
  ): Promise<Store.DeleteSubjectResult> {
    return this.core.deleteSubject(this.tenantId, subjectId, options?.signal);
  }

  watch(
    subjectId: string,
    listener: (change: Store.StoreChange) => void,
    options?: Store.WatchOptions,
  ): Store.Subscription {
    return this.core.watch(this.tenantId, subjectId, listener, options);
  }

  async close(): Promise<void> {}
}
