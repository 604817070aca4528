import {
  type Authority,
  authorityKey,
  authorityOf,
  isAuthority,
  mayOverrule,
} from "./authority.js";
import type { Episode, JsonObject, JsonValue, Memory, MemoryKind } from "./context-store.js";
import { effectKey, replacementKey, statedEffectOf } from "./decision-effect.js";
import { profileFactsOf } from "./profile-facts.js";

/**
 * The deterministic, local compile rules: which memory (if any) one episode becomes.
 * No LLM, no clock, no ids: the store adds those. Same episode in, same draft out.
 */

/** Episode types that carry machinery (CRDT updates, run events), never knowledge. */
export const nonMemoryEpisodeTypes: ReadonlySet<string> = new Set([
  "state_update",
  "state_snapshot",
  "run_event",
]);

/** Episode types that become a memory of the same kind. */
const passThroughKinds: ReadonlySet<string> = new Set([
  "architectural_decision",
  "implementation_note",
  "review_finding",
  "profile_fact",
  "procedure",
  "artifact_ref",
  "episode_summary",
]);

/**
 * Short spellings agents tend to use for the typed kinds. A `Map`, never a plain object: the
 * episode type is user input, and `{…}["constructor"]` would find `Object`'s own members.
 */
const kindAliases: ReadonlyMap<string, MemoryKind> = new Map([
  ["decision", "architectural_decision"],
  ["note", "implementation_note"],
  ["finding", "review_finding"],
  ["review", "review_finding"],
]);

/**
 * Confidence when the payload gives none. Decisions are deliberate statements, so they rank
 * as most certain; free text (`episode_summary`) keeps Statewave's heuristic 0.8.
 */
export const defaultConfidenceByKind: Readonly<Record<string, number>> = Object.freeze(
  // No prototype: a kind read from a database written by someone else (`constructor`,
  // `__proto__`) finds nothing here instead of Object's members.
  Object.assign(Object.create(null) as Record<string, number>, {
    architectural_decision: 0.9,
    review_finding: 0.8,
    implementation_note: 0.7,
    procedure: 0.8,
    artifact_ref: 0.7,
    profile_fact: 0.6,
    episode_summary: 0.8,
  }),
);

/** What one episode compiles to, before the store gives it an id and timestamps. */
export interface MemoryDraft {
  kind: MemoryKind;
  content: string;
  /** The first 200 code points of `content`. */
  summary: string;
  confidence: number;
  /**
   * Supersede key: a newer memory with the same kind and target replaces an older one the writer
   * knew of (see {@link supersedes}).
   */
  target: string | null;
  /** The agent that wrote the episode (`episode.source`). */
  source: string;
  /** Memory ids the writer declared it had read (`provenance.read_memory_ids`), deduplicated. */
  readMemoryIds: string[];
  /**
   * The memory ids the writer names as the ones it replaces (`provenance.supersedes_memory_ids`):
   * when set, it supersedes exactly those (see {@link supersedes}). Absent on drafts that name none.
   */
  supersedesMemoryIds?: string[];
  metadata: JsonObject;
}

/**
 * The active memory a draft becomes once the store has given it an id and a time, for every store
 * (SQLite, Postgres): `contradicted` names the active memories it disputes (recorded in
 * `metadata.contradicts`), none when it superseded or stood alone.
 */
export function memoryFromDraft(
  draft: MemoryDraft,
  fields: {
    id: string;
    subjectId: string;
    episodeId: string;
    validFrom: string;
    now: string;
    contradicted: readonly string[];
  },
): Memory {
  return {
    id: fields.id,
    subjectId: fields.subjectId,
    kind: draft.kind,
    content: draft.content,
    summary: draft.summary,
    confidence: draft.confidence,
    validFrom: fields.validFrom,
    validTo: null,
    sourceEpisodeIds: [fields.episodeId],
    metadata:
      fields.contradicted.length > 0
        ? { ...draft.metadata, [contradictsKey]: [...fields.contradicted] }
        : draft.metadata,
    status: "active",
    createdAt: fields.now,
    updatedAt: fields.now,
  };
}

/**
 * The provenance key under which a writer lists the memory ids it had read when it wrote the
 * episode (`provenance: { read_memory_ids: ["mem-1", …] }`). snake_case, as Statewave's own
 * provenance keys are. `SharedContext.decide` fills it from the caller's latest `beforeActing`.
 */
export const readMemoryIdsKey = "read_memory_ids";

/** Metadata key on a newer memory listing the active memories it contradicts (written without knowing them). */
export const contradictsKey = "contradicts";

/**
 * The provenance key under which a writer names the memory ids its episode replaces
 * (`provenance: { supersedes_memory_ids: ["mem-1"] }`): a supersede by id, not by a guess from the
 * target. `SharedContext.decide({ supersedes })` and `retract` fill it.
 */
export const supersedesMemoryIdsKey = "supersedes_memory_ids";

/**
 * Metadata key on a retraction's memory naming the memory it retracted (`payload.retracts`): the
 * retracted decision is superseded by it, and readers list the retraction as no decision at all.
 */
export const retractsKey = "retracts";

/** The memory ids an episode's provenance says its writer had read (strings only, deduplicated, in order). */
export function readMemoryIdsOf(provenance: JsonObject | undefined): string[] {
  return memoryIdsAt(provenance, readMemoryIdsKey);
}

/** The memory ids an episode's provenance says it replaces (strings only, deduplicated, in order). */
export function supersedesMemoryIdsOf(provenance: JsonObject | undefined): string[] {
  return memoryIdsAt(provenance, supersedesMemoryIdsKey);
}

function memoryIdsAt(provenance: JsonObject | undefined, key: string): string[] {
  const value = provenance?.[key];
  if (!Array.isArray(value)) return [];
  const ids: string[] = [];
  for (const item of value) {
    if (typeof item === "string" && item && !ids.includes(item)) ids.push(item);
  }
  return ids;
}

/** What {@link supersedes} needs to know about the older, already compiled memory. */
export interface SupersedeCandidate {
  id: string;
  /** `metadata.source`: the agent that wrote it. */
  source: string | undefined;
  /** `metadata.escalationId`, when it is about a shared-state escalation. */
  escalationId: string | undefined;
  /** `metadata.authority`: how its claim was established (`agent` when it names none). */
  authority: Authority;
}

/**
 * The candidate a stored memory is to the supersede rule, read from its metadata: every store
 * builds it here, so they all read the same keys the same way (a value of the wrong type, written
 * by another client, counts as absent).
 */
export function supersedeCandidateOf(id: string, metadata: JsonObject): SupersedeCandidate {
  const { source, escalationId } = metadata;
  return {
    id,
    source: typeof source === "string" ? source : undefined,
    escalationId: typeof escalationId === "string" ? escalationId : undefined,
    authority: authorityOf(metadata),
  };
}

/**
 * Whether a newer memory supersedes an older active one with the same kind and target.
 *
 * Supersede means "a newer statement written with knowledge of the older one":
 * - the same agent restating (it knows what it said before);
 * - another agent whose episode declares it had read the older memory
 *   (`provenance.read_memory_ids`);
 * - a statement about the same shared-state escalation (`payload.escalationId`): a resolution
 *   names the escalation it settles, and a repeated announcement restates the same dispute.
 *
 * A writer that names the memory ids it replaces (`provenance.supersedes_memory_ids`) supersedes
 * exactly those, and none of the rules above apply to it.
 *
 * A different agent that had not seen it did not overrule it: the two disagree, and compile keeps
 * both active and records the contradiction on the newer one (`metadata.contradicts`) instead of
 * letting the later write silently win.
 *
 * Before all of that, authority (`metadata.authority`, see `authority.ts`): a write of lower
 * authority never supersedes one of higher authority, not even when its writer had read it, so an
 * agent's informed guess cannot overrule what a person said. The pair is then a dispute like an
 * uninformed contradiction, which a later write of at least the higher authority, made knowing
 * both, settles by superseding both.
 */
export function supersedes(
  newer: Pick<MemoryDraft, "source" | "readMemoryIds" | "metadata" | "supersedesMemoryIds">,
  older: SupersedeCandidate,
): boolean {
  if (!mayOverrule(authorityOf(newer.metadata), older.authority)) return false;
  // A writer that names what it replaces replaces exactly that: the rest of the target stays.
  if (newer.supersedesMemoryIds?.length) return newer.supersedesMemoryIds.includes(older.id);
  if (older.source === newer.source || newer.readMemoryIds.includes(older.id)) return true;
  const escalationId = newer.metadata.escalationId;
  return typeof escalationId === "string" && escalationId === older.escalationId;
}

/** The memory kind for an episode type: typed kinds pass through, anything else is a summary. */
export function memoryKindFor(episodeType: string): MemoryKind {
  if (passThroughKinds.has(episodeType)) return episodeType;
  return kindAliases.get(episodeType) ?? "episode_summary";
}

/** Text of a JSON value: strings as they are, other values as JSON. */
function textOf(value: JsonValue | undefined): string {
  if (value === undefined || value === null) return "";
  if (typeof value === "string") return value;
  // Numbers and booleans too: JSON's text of them is the plain one (no NaN reaches a payload).
  return JSON.stringify(value);
}

/** `payload.content | payload.text | payload.summary`, else chat `messages` as `role: content` lines. */
export function episodeText(payload: JsonObject): string {
  for (const key of ["content", "text", "summary"] as const) {
    const text = textOf(payload[key]).trim();
    if (text) return text;
  }
  const messages = payload.messages;
  if (Array.isArray(messages)) {
    return messages
      .map((message) => {
        if (typeof message !== "object" || message === null || Array.isArray(message)) {
          return textOf(message);
        }
        return `${textOf(message.role)}: ${textOf(message.content)}`;
      })
      .join("\n")
      .trim();
  }
  return "";
}

function targetOf(payload: JsonObject): string | null {
  for (const key of ["target", "key"] as const) {
    const value = payload[key];
    if (typeof value === "string" && value.trim()) return value.trim();
    if (typeof value === "number") return String(value);
  }
  return null;
}

function confidenceOf(payload: JsonObject, kind: MemoryKind): number {
  const value = payload.confidence;
  if (typeof value === "number" && Number.isFinite(value) && value >= 0 && value <= 1) {
    return value;
  }
  return Object.hasOwn(defaultConfidenceByKind, kind)
    ? (defaultConfidenceByKind[kind] ?? 0.5)
    : 0.5;
}

/** The first `count` code points (not UTF-16 units), so emoji are never cut in half. */
export function firstCodePoints(text: string, count: number): string {
  let result = "";
  let taken = 0;
  for (const character of text) {
    if (taken === count) break;
    result += character;
    taken += 1;
  }
  return result;
}

/**
 * The memory one episode becomes, or `null` when it carries no knowledge (a machinery type,
 * or no text). Never throws on odd payloads: compile must not be poisoned by one bad episode.
 */
export function compileEpisode(
  episode: Pick<Episode, "type" | "source" | "payload"> & {
    provenance?: JsonObject;
    metadata?: JsonObject;
  },
): MemoryDraft | null {
  if (nonMemoryEpisodeTypes.has(episode.type)) return null;
  const content = episodeText(episode.payload);
  if (!content) return null;
  const kind = memoryKindFor(episode.type);
  const target = targetOf(episode.payload);
  const metadata: JsonObject = { source: episode.source, episodeType: episode.type };
  if (target !== null) metadata.target = target;
  // Kept so that a resolution's memory supersedes its escalation's (see `supersedes`).
  const escalationId = episode.payload.escalationId;
  if (typeof escalationId === "string" && escalationId) metadata.escalationId = escalationId;
  // The episode's authority travels with its memory (the supersede rule and ranking read it
  // there); only a declared class is copied, so memories of episodes that name none stay as they were.
  const authority = episode.metadata?.[authorityKey];
  if (isAuthority(authority)) metadata[authorityKey] = authority;
  // Kept so that readers tell a retraction from a decision (it stands for none).
  const retracts = episode.payload[retractsKey];
  if (typeof retracts === "string" && retracts) metadata[retractsKey] = retracts;
  // A decision's explicit effect on its target, which enforcement reads instead of the wording.
  const stated = statedEffectOf(episode.payload);
  if (stated !== undefined) {
    metadata[effectKey] = stated.effect;
    if (stated.replacement !== undefined) metadata[replacementKey] = stated.replacement;
  }
  const supersedesMemoryIds = supersedesMemoryIdsOf(episode.provenance);
  return {
    kind,
    content,
    summary: firstCodePoints(content, 200),
    confidence: confidenceOf(episode.payload, kind),
    target,
    source: episode.source,
    readMemoryIds: readMemoryIdsOf(episode.provenance),
    ...(supersedesMemoryIds.length > 0 ? { supersedesMemoryIds } : {}),
    metadata,
  };
}

/**
 * The `profile_fact`s of a conversation episode (`payload.messages`), as Statewave's heuristic
 * compiler finds them (contract §8.3): what the **user** says about themselves ("My name is
 * Alice Chen", "I work at Globex Corporation"), one memory each, confidence 0.6, beside the
 * episode's own `episode_summary` from {@link compileEpisode}. Only `user` messages are read: an
 * assistant's "I am on it" is not a fact about the user. Episodes without messages (agents'
 * decisions and notes) yield none, so an agent's "I prefer RS256" stays the decision it is.
 * Never throws on odd payloads.
 */
export function compileProfileFacts(
  episode: Pick<Episode, "type" | "source" | "payload">,
): MemoryDraft[] {
  if (nonMemoryEpisodeTypes.has(episode.type)) return [];
  if (memoryKindFor(episode.type) !== "episode_summary") return [];
  const messages = episode.payload.messages;
  if (!Array.isArray(messages)) return [];
  const userText = messages
    .flatMap((message) =>
      typeof message === "object" &&
      message !== null &&
      !Array.isArray(message) &&
      textOf(message.role).toLowerCase() === "user"
        ? [textOf(message.content)]
        : [],
    )
    .join("\n");
  return profileFactsOf(userText).map((content) => ({
    kind: "profile_fact",
    content,
    summary: firstCodePoints(content, 200),
    confidence: defaultConfidenceByKind.profile_fact ?? 0.6,
    target: null,
    source: episode.source,
    readMemoryIds: [],
    metadata: { source: episode.source, episodeType: episode.type },
  }));
}
