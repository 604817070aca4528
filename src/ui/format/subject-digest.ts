import { type Authority, authorityOf, defaultAuthority } from "../../context/authority.js";
import type { Episode, Memory, StoreChange } from "../../context/context-store.js";
import { fromRunEventEpisode } from "../../scenario/run-record.js";
import type { AgentInfo, ScenarioEvent } from "../../scenario/scenario-events.js";
import { type AgentDirectory, createAgentDirectory } from "./agent-directory.js";

/**
 * What `watch` needs of a subject, folded change by change, so that neither a one-off read nor a
 * live follower holds the subject itself: each episode is read for the run events it carries and
 * dropped; each decision memory is kept as the few fields the view shows; other memories are not
 * kept at all. Its size follows the decisions and the distinct reads, not the episodes.
 */

/** A decision memory, reduced to what the view shows and what its rules compare. */
export interface DecisionDigest {
  readonly id: string;
  readonly target?: string;
  /** `metadata.source`: the raw agent id (named at view time, once run-start is known). */
  readonly source?: string;
  readonly authority?: Authority;
  readonly content: string;
  readonly at: string;
  readonly active: boolean;
}

/** A claim from a run's events: module, agent id, "claimed" or "building". */
export interface RunClaimDigest {
  readonly module: string;
  readonly agentId: string;
  readonly state: string;
}

/** The first time an agent read a memory (a run's `context-read`). */
export interface ReadDigest {
  readonly agentId: string;
  readonly memoryId: string;
  readonly at: string;
}

/** Kinds that are decisions or findings (what agents act on), not summaries of machinery. */
const decisionKinds = new Set(["architectural_decision", "review_finding", "procedure"]);

function text(value: unknown): string | undefined {
  return typeof value === "string" && value ? value : undefined;
}

/** A decision memory as the digest keeps it. */
function digestOf(memory: Memory): DecisionDigest {
  const target = text(memory.metadata.target);
  const source = text(memory.metadata.source);
  const authority = authorityOf(memory.metadata);
  return {
    id: memory.id,
    ...(target ? { target } : {}),
    ...(source ? { source } : {}),
    ...(authority === defaultAuthority ? {} : { authority }),
    content: memory.content,
    at: memory.createdAt,
    active: memory.status === "active",
  };
}

/** The fold; {@link buildSubjectView} and the live follower read it. */
export class SubjectDigest {
  readonly subjectId: string;
  #episodes = 0;
  #lastActivity: string | undefined;
  #agents: readonly AgentInfo[] | undefined;
  /** Decisions by id, in the order first seen (oldest first); a change replaces in place. */
  readonly decisions = new Map<string, DecisionDigest>();
  readonly #claims = new Map<string, RunClaimDigest>();
  readonly #finished = new Set<string>();
  readonly #escalations = new Map<string, Extract<ScenarioEvent, { type: "escalation" }>>();
  readonly #resolved = new Set<string>();
  readonly #reads = new Map<string, ReadDigest>();
  /** Ids of episodes applied, when `dedupe` asked for them (a live feed overlapping a read). */
  readonly #episodeIds: Set<string> | undefined;

  /** @param options.dedupe skip an episode applied before (by id): a feed overlapping a read */
  constructor(subjectId: string, options: { dedupe?: boolean } = {}) {
    this.subjectId = subjectId;
    this.#episodeIds = options.dedupe ? new Set() : undefined;
  }

  /** Episodes applied. */
  get episodes(): number {
    return this.#episodes;
  }

  /** The newest episode's time. */
  get lastActivity(): string | undefined {
    return this.#lastActivity;
  }

  /** The run's agents (from its run-start), named as the run named them. */
  get agents(): AgentDirectory {
    return createAgentDirectory(this.#agents ?? []);
  }

  /** Open claims from run events, in the order they were made. */
  get runClaims(): readonly RunClaimDigest[] {
    return [...this.#claims.values()];
  }

  /** Modules whose work a run ended (built, skipped, cancelled). */
  get finishedModules(): ReadonlySet<string> {
    return this.#finished;
  }

  /** Escalations of run events not resolved yet, in order. */
  get openEscalations(): ReadonlyArray<Extract<ScenarioEvent, { type: "escalation" }>> {
    return [...this.#escalations.values()].filter(
      (event) => !this.#resolved.has(event.escalationId),
    );
  }

  /** Each agent's first read of each memory, in the order read. */
  get reads(): Iterable<ReadDigest> {
    return this.#reads.values();
  }

  /** Applies a change of the subject's feed (or of a page read). */
  apply(change: StoreChange): void {
    if (change.type === "episode") this.addEpisode(change.episode);
    else this.addMemory(change.memory);
  }

  /** An episode, oldest first: counted, its run event folded in, then dropped. */
  addEpisode(episode: Episode): void {
    if (this.#episodeIds) {
      if (this.#episodeIds.has(episode.id)) return;
      this.#episodeIds.add(episode.id);
    }
    this.#episodes += 1;
    this.#lastActivity = episode.createdAt;
    const event = fromRunEventEpisode(episode);
    if (event !== undefined) this.#addEvent(event, episode.createdAt);
  }

  /** A memory, new or changed (by id): a decision is kept in brief, anything else ignored. */
  addMemory(memory: Memory): void {
    if (decisionKinds.has(memory.kind)) this.decisions.set(memory.id, digestOf(memory));
  }

  #addEvent(event: ScenarioEvent, at: string): void {
    switch (event.type) {
      case "run-start":
        this.#agents ??= event.agents;
        return;
      case "module-claim":
      case "module-start":
        // A module keeps its place when claimed again (a Map's set), as the view always listed it.
        this.#claims.set(event.module, {
          module: event.module,
          agentId: event.agentId,
          state: event.type === "module-claim" ? "claimed" : "building",
        });
        return;
      case "module-end":
      case "module-skip":
      case "module-cancel":
        this.#claims.delete(event.module);
        this.#finished.add(event.module);
        return;
      case "escalation":
        this.#escalations.set(event.escalationId, event);
        return;
      case "escalation-resolve":
        this.#resolved.add(event.escalationId);
        return;
      case "context-read":
        for (const memoryId of event.memoryIds) {
          const key = `${event.agentId}\u0000${memoryId}`;
          if (!this.#reads.has(key)) this.#reads.set(key, { agentId: event.agentId, memoryId, at });
        }
        return;
      default:
        return;
    }
  }
}
