import { type Authority, authorityKey } from "./authority.js";
import { readMemoryIdsKey, retractsKey, supersedesMemoryIdsKey } from "./compile-memories.js";
import type { ContextStore, Episode, JsonObject, Memory, Timeline } from "./context-store.js";
import { type DecisionEffect, effectPayload } from "./decision-effect.js";
import { type DecisionHistory, decisionHistory } from "./decision-history.js";
import { DecisionLifecycleError } from "./errors/decision-lifecycle-error.js";
import { targetOf } from "./memory-metadata.js";
import { listAllMemories } from "./memory-query.js";
import { listOnTargets } from "./reads-by-target.js";

/** What `decide` and `retract` return: the episode written and the memories it compiled into. */
export interface DecideResult {
  episode: Episode;
  memories: Memory[];
}

/** The options of `SharedContext.decide` (each documented there). */
export interface DecideOptions {
  kind?: string;
  target?: string;
  confidence?: number;
  payload?: JsonObject;
  readMemoryIds?: readonly string[];
  authority?: Authority;
  supersedes?: string;
  idempotencyKey?: string;
  /**
   * What the decision does to its target (`retire`, `keep`, `freeze`, `replace`; see
   * decision-effect.ts): the edit hooks enforce it, reading the wording only without one. Needs a
   * target; `replace` needs `replacement`, or `decide` throws a `StoreValidationError`.
   */
  effect?: DecisionEffect;
  /** With `effect: "replace"`: what replaces the target. */
  replacement?: string;
}

/** The options of `SharedContext.retract` (each documented there). */
export interface RetractOptions {
  reason?: string;
  idempotencyKey?: string;
  /** The retraction's class (@default `agent`): it takes back only a decision it may overrule. */
  authority?: Authority;
}

/** The decision kind `beforeActing` reports separately, and the kind a decision has by default. */
export const decisionKind = "architectural_decision";

/**
 * How many of the subject's newest episodes a history looks for readers in, besides the episodes
 * on the memory's own target: no store indexes who read what, so a complete search would read
 * every episode (seconds at 50,000 decisions).
 */
export const readersWindow = 100;

/** Oldest first by time (a stable sort keeps the store's order among equal times). */
function byTime(left: Episode, right: Episode): number {
  return left.createdAt < right.createdAt ? -1 : left.createdAt > right.createdAt ? 1 : 0;
}

function notFound(memoryId: string, subjectId: string): DecisionLifecycleError {
  return new DecisionLifecycleError(
    memoryId,
    "not-found",
    `subject ${JSON.stringify(subjectId)} has no memory ${JSON.stringify(memoryId)} (ids come from check_shared_decisions, beforeActing or the timeline)`,
  );
}

/**
 * A subject's decision life cycle, apart from reading: a decision published, one superseded by id
 * or retracted, and a memory's history. `SharedContext`'s `decide`, `retract` and `history` are
 * these (documented there); each episode records what its writer knew from its latest read.
 */
export class DecisionLife {
  readonly #store: ContextStore;
  readonly #subjectId: string;
  readonly #latestRead: (callerId: string) => readonly string[];

  /** @param options.latestRead the memory ids a caller received from its latest read */
  constructor(options: {
    store: ContextStore;
    subjectId: string;
    latestRead: (callerId: string) => readonly string[];
  }) {
    this.#store = options.store;
    this.#subjectId = options.subjectId;
    this.#latestRead = options.latestRead;
  }

  /** Publishes what `callerId` decided (see `SharedContext.decide`). */
  async decide(
    callerId: string,
    content: string,
    options: DecideOptions = {},
  ): Promise<DecideResult> {
    const payload: JsonObject = { ...options.payload, content };
    let kind = options.kind ?? decisionKind;
    const replaced: string[] = [];
    if (options.supersedes !== undefined) {
      const found = await this.#replaceable(callerId, options.supersedes, options.idempotencyKey);
      if ("done" in found) return found.done;
      const { memory, target } = found;
      if (
        (options.kind !== undefined && options.kind !== memory.kind) ||
        (options.target !== undefined && options.target !== target)
      ) {
        throw new DecisionLifecycleError(
          memory.id,
          "other-subject-matter",
          `${memory.id} is a ${memory.kind} on ${JSON.stringify(target)}; a decision that supersedes it keeps its kind and target (leave them out, or publish without supersedes)`,
        );
      }
      kind = memory.kind;
      payload.target = target;
      replaced.push(memory.id);
    } else if (options.target !== undefined) {
      payload.target = options.target;
    }
    if (options.confidence !== undefined) payload.confidence = options.confidence;
    Object.assign(
      payload,
      effectPayload({
        effect: options.effect,
        replacement: options.replacement,
        target: typeof payload.target === "string" ? payload.target : undefined,
      }),
    );
    return this.#publish(callerId, kind, payload, {
      readMemoryIds: [...(options.readMemoryIds ?? []), ...replaced],
      supersedes: replaced,
      ...(options.idempotencyKey === undefined ? {} : { idempotencyKey: options.idempotencyKey }),
      ...(options.authority === undefined ? {} : { authority: options.authority }),
    });
  }

  /** Takes back a decision (see `SharedContext.retract`). */
  async retract(
    callerId: string,
    memoryId: string,
    options: RetractOptions = {},
  ): Promise<DecideResult> {
    const found = await this.#replaceable(callerId, memoryId, options.idempotencyKey);
    if ("done" in found) return found.done;
    const { memory, target } = found;
    const reason = options.reason?.trim();
    const payload: JsonObject = {
      content: `Retracted: ${memory.content}${reason ? ` (reason: ${reason})` : ""}`,
      target,
      [retractsKey]: memory.id,
      ...(reason ? { reason } : {}),
    };
    return this.#publish(callerId, memory.kind, payload, {
      readMemoryIds: [memory.id],
      supersedes: [memory.id],
      ...(options.idempotencyKey === undefined ? {} : { idempotencyKey: options.idempotencyKey }),
      // A person's retraction (the CLI's) may take back a person's decision; an agent's may not.
      ...(options.authority === undefined ? {} : { authority: options.authority }),
    });
  }

  /** The history of one memory of the subject (see `SharedContext.history`). */
  async history(memoryId: string): Promise<DecisionHistory> {
    const memory = await this.#memory(memoryId);
    const life = await this.#lifeOf(memory, { readers: true });
    const history = decisionHistory(life, memoryId);
    if (history === undefined) throw notFound(memoryId, this.#subjectId);
    return life.readersWithin === undefined
      ? history
      : { ...history, readersWithin: life.readersWithin };
  }

  /** One episode of `callerId`, compiled at once; its memories, even when a retry found it stored. */
  async #publish(
    callerId: string,
    kind: string,
    payload: JsonObject,
    options: {
      readMemoryIds: readonly string[];
      supersedes: readonly string[];
      idempotencyKey?: string;
      authority?: Authority;
    },
  ): Promise<DecideResult> {
    const knew = [...new Set([...this.#latestRead(callerId), ...options.readMemoryIds])];
    const provenance: JsonObject = { [readMemoryIdsKey]: knew };
    if (options.supersedes.length > 0) provenance[supersedesMemoryIdsKey] = [...options.supersedes];
    const episode = await this.#store.createEpisode({
      subjectId: this.#subjectId,
      source: callerId,
      type: kind,
      payload,
      // Only a named class is written: an episode without one is an agent's (the default), as
      // every episode written before authority existed is.
      ...(options.authority !== undefined
        ? { metadata: { [authorityKey]: options.authority } }
        : {}),
      provenance,
      ...(options.idempotencyKey === undefined ? {} : { idempotencyKey: options.idempotencyKey }),
    });
    const compiled = await this.#store.compileMemories(this.#subjectId);
    const memories = compiled.memories.filter((memory) =>
      memory.sourceEpisodeIds.includes(episode.id),
    );
    if (memories.length > 0 || options.idempotencyKey === undefined) return { episode, memories };
    // The key was used before: the episode is the first call's, compiled then.
    return { episode, memories: await this.#memoriesOf(episode) };
  }

  /** The memories compiled from `episode`, whatever their status (the timeline has them all). */
  async #memoriesOf(episode: Episode): Promise<Memory[]> {
    const target = episode.payload.target;
    const query = { kind: episode.type, status: "any" as const };
    const candidates =
      typeof target === "string"
        ? await listOnTargets(this.#store, this.#subjectId, [target], query)
        : await listAllMemories(this.#store, this.#subjectId, query);
    return candidates.filter((memory) => memory.sourceEpisodeIds.includes(episode.id)).reverse();
  }

  /**
   * The active memory `memoryId` and its target, for a supersede by id or a retraction; or, when it
   * is no longer active because `callerId` replaced it under the same idempotency key (a retry),
   * that earlier call's result.
   */
  async #replaceable(
    callerId: string,
    memoryId: string,
    idempotencyKey: string | undefined,
  ): Promise<{ memory: Memory; target: string } | { done: DecideResult }> {
    const memory = await this.#memory(memoryId);
    if (memory.status !== "active") {
      const timeline = await this.#lifeOf(memory, { readers: false });
      const history = decisionHistory(timeline, memoryId);
      const supersededBy = history?.supersededBy;
      if (idempotencyKey !== undefined && supersededBy?.agentId === callerId) {
        const replacement = timeline.memories.find((other) => other.id === supersededBy.memoryId);
        const episodeId = replacement?.sourceEpisodeIds[0];
        const episode = timeline.episodes.find((other) => other.id === episodeId);
        if (replacement !== undefined && episode !== undefined) {
          return { done: { episode, memories: [replacement] } };
        }
      }
      const by = supersededBy
        ? ` by ${supersededBy.agentId} (${supersededBy.memoryId}: ${JSON.stringify(supersededBy.content)})`
        : "";
      throw new DecisionLifecycleError(
        memoryId,
        "not-active",
        `${memoryId} is no longer active: it was ${history?.status ?? memory.status}${by}; supersede or retract the active one instead`,
      );
    }
    const target = targetOf(memory);
    if (target === undefined) {
      throw new DecisionLifecycleError(
        memoryId,
        "no-target",
        `${memoryId} has no target, and a memory is replaced only within its kind and target: publish decisions with a target to supersede or retract them by id`,
      );
    }
    return { memory, target };
  }

  /** The subject's memory `memoryId`, any status, read by id. @throws not-found */
  async #memory(memoryId: string): Promise<Memory> {
    const memory = await this.#store.getMemory(this.#subjectId, memoryId);
    if (memory === null) throw notFound(memoryId, this.#subjectId);
    return memory;
  }

  /**
   * What a memory's life is read from, exactly and without the rest of the subject: every memory
   * of its kind on its target (any status, oldest first; itself alone when it has no target) and
   * the episodes they were compiled from. With `readers`, also the subject's newest
   * {@link readersWindow} episodes (who declared reading it can be any later episode, and nothing
   * indexes that); `readersWithin` says when the subject holds more.
   */
  async #lifeOf(
    memory: Memory,
    options: { readers: boolean },
  ): Promise<Timeline & { readersWithin?: { newestEpisodes: number } }> {
    const target = targetOf(memory);
    const memories =
      target === undefined
        ? [memory]
        : (
            await listOnTargets(this.#store, this.#subjectId, [target], {
              kind: memory.kind,
              status: "any",
            })
          ).reverse();
    const own = await this.#episodesOf(memories);
    if (!options.readers) return { subjectId: this.#subjectId, episodes: own, memories };
    const newest = await this.#store.getTimeline(this.#subjectId, {
      limit: readersWindow,
      newestFirst: true,
    });
    const seen = new Set(own.map((episode) => episode.id));
    const episodes = [...own, ...newest.episodes.filter((episode) => !seen.has(episode.id))].sort(
      byTime,
    );
    const more = newest.episodesHasMore ?? newest.episodes.length >= readersWindow;
    return {
      subjectId: this.#subjectId,
      episodes,
      memories,
      ...(more ? { readersWithin: { newestEpisodes: readersWindow } } : {}),
    };
  }

  /** The episodes `memories` were compiled from, by id, in the store's order. */
  async #episodesOf(memories: readonly Memory[]): Promise<Episode[]> {
    const ids = [...new Set(memories.flatMap((memory) => memory.sourceEpisodeIds))];
    const found = await Promise.all(ids.map((id) => this.#store.getEpisode(this.#subjectId, id)));
    return found.filter((episode): episode is Episode => episode !== null).sort(byTime);
  }
}
