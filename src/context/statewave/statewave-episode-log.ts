import { randomUUID } from "node:crypto";
import { nonMemoryEpisodeTypes } from "../compile-memories.js";
import type { CreateEpisodeInput, Episode, JsonObject } from "../context-store.js";
import type { StatewaveClient } from "./statewave-client.js";

/**
 * A subject's whole, ordered episode log on a server whose timeline is capped (a real Statewave
 * v0.7.1 returns the OLDEST 100 episodes and ignores `limit`/`offset`, contract §5.7, fixtures 09
 * and 10), using only calls such a server answers: create, batch and the capped timeline.
 *
 * The log is a chain of segments of at most 100 visible episodes each. Segment 0 is the subject
 * itself, so a small subject costs nothing extra. Later segments are subjects of their own,
 * `_snapshot/shared-ctx/<subject>/<n>`, a prefix Statewave hides from `GET /v1/subjects`. Once the
 * subject shows 100 episodes, new episodes go to the current segment; those that compile to
 * knowledge also still go to the subject itself (compile, search and context work on it) and their
 * segment copy carries the subject copy's id (`metadata["shared-ctx/episode"]`), so the log and the
 * memories' `source_episode_ids` agree.
 *
 * Several writers (processes) may race for the last places of a segment. An episode is only kept
 * once it is SEEN among a segment's visible 100: when a read finds a segment full, every episode
 * this writer put there and does not see is written again into the next segment (same id marker).
 * Writers read the segment before writing near its end (from 90 on), and every read reconciles.
 *
 * A server that honours paging (`shared-ctx serve`, Statewave v1.x) is detected on the first read
 * of a subject with two or more episodes; nothing of this is used then.
 */

/** Metadata key of a segment copy: the id the episode is known by. */
export const logEpisodeKey = "shared-ctx/episode";

/** Statewave v0.7.1's timeline cap. */
const segmentSize = 100;
/** From this many (known) episodes on, a writer reads the segment before writing more. */
const checkFrom = 90;

/** The subject holding segment `index` (>= 1) of `subjectId`'s log. */
export function segmentSubject(subjectId: string, index: number): string {
  return `_snapshot/shared-ctx/${subjectId}/${index}`;
}

/** An episode as the log presents it: its marker id, the marker removed from metadata. */
function presented(episode: Episode, subjectId: string): Episode {
  const marker = episode.metadata[logEpisodeKey];
  if (typeof marker !== "string") return episode;
  const { [logEpisodeKey]: _marker, ...metadata } = episode.metadata;
  return { ...episode, id: marker, subjectId, metadata };
}

/** Episodes the subject itself must hold because the server compiles it there. */
function isKnowledge(input: CreateEpisodeInput): boolean {
  return !nonMemoryEpisodeTypes.has(input.type);
}

interface Pending {
  /** The server id of the copy in this segment. */
  serverId: string;
  /** The id the log presents it by. */
  id: string;
  input: CreateEpisodeInput;
}

interface SubjectLog {
  /** Segments read full (immutable from then on), presented episodes. */
  full: Episode[][];
  /** The visible episodes of the first segment not (yet) full, as last read. */
  open: Episode[];
  /** Written by this writer into the open segment, not yet seen there. */
  pending: Pending[];
  /** Serialises reconcile rounds and writes of this subject. */
  chain: Promise<unknown>;
}

/** Options of {@link EpisodeLog}. */
export interface EpisodeLogOptions {
  client: StatewaveClient;
  /** Ids of segment copies of episodes that only live in segments. @default crypto.randomUUID */
  generateId?: () => string;
}

/** The capped-timeline log of every subject one `StatewaveStore` writes or reads. */
export class EpisodeLog {
  readonly #client: StatewaveClient;
  readonly #generateId: () => string;
  readonly #subjects = new Map<string, SubjectLog>();
  /** Whether the server honours `limit`/`offset`; undefined until a read could tell. */
  #paged: boolean | undefined;

  constructor(options: EpisodeLogOptions) {
    this.#client = options.client;
    this.#generateId = options.generateId ?? randomUUID;
  }

  /** True once the server is known to honour paging: then the subject's timeline is the log. */
  get paged(): boolean | undefined {
    return this.#paged;
  }

  #log(subjectId: string): SubjectLog {
    let log = this.#subjects.get(subjectId);
    if (log === undefined) {
      log = { full: [], open: [], pending: [], chain: Promise.resolve() };
      this.#subjects.set(subjectId, log);
    }
    return log;
  }

  #serial<T>(log: SubjectLog, work: () => Promise<T>): Promise<T> {
    const result = log.chain.then(work);
    log.chain = result.catch(() => undefined);
    return result;
  }

  /** Tells paged from capped with one tiny read, when the subject has two or more episodes. */
  async #detect(subjectId: string, signal?: AbortSignal): Promise<void> {
    if (this.#paged !== undefined) return;
    const probe = await this.#client.getTimeline(subjectId, { limit: 1 }, signal ? { signal } : {});
    const [first] = probe.episodes;
    if (probe.episodes.length > 1) this.#paged = false;
    else if (probe.episodesHasMore !== undefined) this.#paged = true;
    else if (first !== undefined) {
      const second = await this.#client.getTimeline(
        subjectId,
        { limit: 1, offset: 1 },
        signal ? { signal } : {},
      );
      const again = second.episodes[0];
      // A server ignoring offset answers the first episode again; one honouring it, the second
      // episode (or none, when there is only one: then it cannot tell yet).
      if (again?.id === first.id) this.#paged = false;
      else if (again !== undefined) this.#paged = true;
    }
  }

  /**
   * Writes episodes of one subject through the log, in order; returns them as the log presents
   * them (the subject's own episode for knowledge, else the segment copy under its marker id).
   */
  write(subjectId: string, inputs: CreateEpisodeInput[], signal?: AbortSignal): Promise<Episode[]> {
    const log = this.#log(subjectId);
    return this.#serial(log, async () => {
      if (this.#paged === true) {
        return this.#writeBatch(subjectId, inputs, signal);
      }
      if (
        this.#paged === undefined &&
        log.open.length + log.pending.length + inputs.length >= checkFrom
      ) {
        await this.#detect(subjectId, signal);
        if (this.#paged === true) {
          log.pending = [];
          return this.#writeBatch(subjectId, inputs, signal);
        }
      }
      if (log.open.length + log.pending.length + inputs.length >= checkFrom) {
        await this.#reconcile(subjectId, log, signal);
      }
      const segment = log.full.length;
      if (segment === 0) {
        const written = await this.#writeBatch(subjectId, inputs, signal);
        written.forEach((episode, index) => {
          const input = inputs[index];
          if (input) log.pending.push({ serverId: episode.id, id: episode.id, input });
        });
        return written;
      }
      // Past segment 0: knowledge also goes to the subject (compiled there), every episode to the segment.
      const knowledge = inputs.filter(isKnowledge);
      const own = knowledge.length > 0 ? await this.#writeBatch(subjectId, knowledge, signal) : [];
      const ids = new Map<CreateEpisodeInput, Episode>();
      knowledge.forEach((input, index) => {
        const episode = own[index];
        if (episode) ids.set(input, episode);
      });
      const copies = inputs.map((input) => ({
        input,
        id: ids.get(input)?.id ?? this.#generateId(),
      }));
      const written = await this.#writeCopies(subjectId, segment, copies, signal);
      written.forEach((episode, index) => {
        const copy = copies[index];
        if (copy) log.pending.push({ serverId: episode.id, id: copy.id, input: copy.input });
      });
      // Knowledge as the subject holds it (memories name that id), the rest as its segment copy.
      return inputs.flatMap((input, index) => {
        const mine = ids.get(input);
        const copy = written[index];
        if (mine) return [mine];
        return copy ? [presented(copy, subjectId)] : [];
      });
    });
  }

  /**
   * The whole log of the subject, oldest first, or `undefined` when the server honours paging
   * (then the subject's own timeline is the log).
   */
  read(subjectId: string, signal?: AbortSignal): Promise<Episode[] | undefined> {
    const log = this.#log(subjectId);
    return this.#serial(log, async () => {
      await this.#detect(subjectId, signal);
      if (this.#paged === true) return undefined;
      await this.#reconcile(subjectId, log, signal);
      const seen = new Set<string>();
      const episodes: Episode[] = [];
      for (const episode of [...log.full.flat(), ...log.open]) {
        if (seen.has(episode.id)) continue;
        seen.add(episode.id);
        episodes.push(episode);
      }
      return episodes;
    });
  }

  /** Reconciles every subject with episodes not yet seen in their segment (before closing). */
  async flush(): Promise<void> {
    await Promise.all(
      [...this.#subjects.entries()]
        // A subject far from its first 100 cannot have overflowed: no read needed.
        .filter(([, log]) => log.pending.length > 0 && this.#paged !== true)
        .filter(([, log]) => log.full.length > 0 || log.open.length + log.pending.length >= 50)
        .map(([subjectId, log]) => this.#serial(log, () => this.#reconcile(subjectId, log))),
    );
  }

  /** Forgets the subject (it was deleted), returning the segment subjects to delete too. */
  forget(subjectId: string): string[] {
    const log = this.#subjects.get(subjectId);
    this.#subjects.delete(subjectId);
    const count = (log?.full.length ?? 0) + 1;
    return Array.from({ length: count }, (_, index) => index + 1).map((index) =>
      segmentSubject(subjectId, index),
    );
  }

  /** Reads the open segment (and the next ones while they are full), rewriting lost episodes. */
  async #reconcile(subjectId: string, log: SubjectLog, signal?: AbortSignal): Promise<void> {
    for (;;) {
      const index = log.full.length;
      const physical = index === 0 ? subjectId : segmentSubject(subjectId, index);
      const timeline = await this.#client.getTimeline(physical, signal ? { signal } : {});
      const visible = timeline.episodes.slice(0, segmentSize);
      const visibleIds = new Set(visible.map((episode) => episode.id));
      const lost = log.pending.filter((pending) => !visibleIds.has(pending.serverId));
      const shown = visible.map((episode) => presented(episode, subjectId));
      if (visible.length < segmentSize) {
        log.open = shown;
        // Not seen yet but the segment is not full: still on its way (or another writer's read).
        log.pending = lost;
        return;
      }
      log.full.push(shown);
      log.open = [];
      log.pending = [];
      // The segment filled up before these landed: they are invisible there, so write them again
      // (none lost: no copies, no request).
      const written = await this.#writeCopies(
        subjectId,
        index + 1,
        lost.map((pending) => ({ input: pending.input, id: pending.id })),
        signal,
      );
      written.forEach((episode, position) => {
        const pending = lost[position];
        if (pending)
          log.pending.push({ serverId: episode.id, id: pending.id, input: pending.input });
      });
    }
  }

  async #writeBatch(
    subjectId: string,
    inputs: CreateEpisodeInput[],
    signal?: AbortSignal,
  ): Promise<Episode[]> {
    const options = signal ? { signal } : {};
    if (inputs.length === 1 && inputs[0]) {
      return [await this.#client.createEpisode(toParams(inputs[0], subjectId), options)];
    }
    return (
      await this.#client.createEpisodesBatch(
        inputs.map((input) => toParams(input, subjectId)),
        options,
      )
    ).episodes;
  }

  async #writeCopies(
    subjectId: string,
    segment: number,
    copies: { input: CreateEpisodeInput; id: string }[],
    signal?: AbortSignal,
  ): Promise<Episode[]> {
    const physical = segmentSubject(subjectId, segment);
    const inputs = copies.map(({ input, id }) => ({
      ...input,
      metadata: { ...(input.metadata ?? {}), [logEpisodeKey]: id } as JsonObject,
    }));
    const written: Episode[] = [];
    for (let start = 0; start < inputs.length; start += segmentSize) {
      written.push(
        ...(await this.#writeBatch(physical, inputs.slice(start, start + segmentSize), signal)),
      );
    }
    return written;
  }
}

function toParams(input: CreateEpisodeInput, subjectId: string) {
  return {
    subjectId,
    source: input.source,
    type: input.type,
    payload: input.payload,
    // Absent ones are sent as the client's defaults (`{}`, no session).
    metadata: input.metadata,
    provenance: input.provenance,
    sessionId: input.sessionId ?? undefined,
    idempotencyKey: input.idempotencyKey ?? undefined,
  };
}
