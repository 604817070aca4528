import {
  compileEpisode,
  contradictsKey,
  type MemoryDraft,
  supersedeCandidateOf,
  supersedes,
} from "../compile-memories.js";
import type { Episode, JsonObject, Memory } from "../context-store.js";

/**
 * shared-ctx's knowledge layer over what any Statewave server returns.
 *
 * A real Statewave compiles an agent's decision into a memory of ITS kinds (`episode_summary`)
 * with `metadata: {}` — the decision's kind, target, value and author only survive in the source
 * episode, linked by `source_episode_ids` (fixtures/statewave-v0.7.1/03-compile.json). And it
 * supersedes by word overlap, never by target, so two contradicting decisions both stay active
 * (08-supersede-compile.json). `shared-ctx serve` carries our kind in `metadata.kind` and applies our
 * rules itself. This module makes both look like the embedded store: a memory is typed from its
 * metadata when the server kept it, else from its source episode through the same compile rules,
 * and the supersede/contradict rule (`supersedes`) is applied client-side to memories typed that way.
 */

/** The memory kinds a Statewave server knows (contract §4). */
export const statewaveMemoryKinds: ReadonlySet<string> = new Set([
  "profile_fact",
  "episode_summary",
  "procedure",
  "artifact_ref",
]);

/** `metadata` key under which `shared-ctx serve` keeps a memory's shared-ctx kind. */
export const memoryKindMetadataKey = "kind";

/** Set on memories typed client-side from their source episode (not sent anywhere). */
const derivedKey = Symbol("derived");

type DerivedMemory = Memory & { [derivedKey]?: MemoryDraft };

/** The draft a client-side typed memory was typed from, when it was. */
export function derivedDraftOf(memory: Memory): MemoryDraft | undefined {
  return (memory as DerivedMemory)[derivedKey];
}

/**
 * The memory as shared-ctx reads it:
 * - `metadata.kind` set (by `serve`): that is its kind, metadata is ours already;
 * - `metadata.source` set (an older `serve`, the embedded store): already typed;
 * - else an `episode_summary` whose source episode is known: typed by the compile rules from the
 *   episode (kind, target, author, escalation), as the embedded store would have;
 * - else unchanged (Statewave's own kinds, e.g. a chat `profile_fact`).
 */
export function typedMemory(
  memory: Memory,
  episodeOf: (id: string) => Episode | undefined,
): Memory {
  const { [memoryKindMetadataKey]: kind, ...metadata } = memory.metadata;
  if (typeof kind === "string" && kind) {
    // `serve` put our kind there for the wire; the memory itself never had that key.
    return kind === memory.kind ? memory : { ...memory, kind, metadata };
  }
  if (typeof memory.metadata.source === "string") return memory;
  // Only the summary stands for the whole episode; a profile_fact is one sentence of it.
  if (memory.kind !== "episode_summary") return memory;
  const sourceId = memory.sourceEpisodeIds[0];
  const episode = sourceId === undefined ? undefined : episodeOf(sourceId);
  if (episode === undefined) return memory;
  const draft = compileEpisode(episode);
  if (draft === null) return memory;
  const typed: DerivedMemory = {
    ...memory,
    kind: draft.kind,
    metadata: { ...draft.metadata, ...memory.metadata },
  };
  Object.defineProperty(typed, derivedKey, { value: draft, enumerable: false });
  return typed;
}

/** The outcome of one newer memory against the older active ones of its kind and target. */
export interface RuleOutcome {
  /** The older memories it supersedes, already marked `superseded` (copies). */
  superseded: Memory[];
  /** The newer memory, with `metadata.contradicts` when it contradicts some. */
  memory: Memory;
}

function targetOf(memory: Memory): string | undefined {
  const target = memory.metadata.target;
  return typeof target === "string" ? target : undefined;
}

/**
 * The embedded compile's rule for one client-side typed memory: each older active memory of the
 * same kind and target is superseded when the newer one's writer knew it (same author, declared
 * read, same escalation), otherwise contradicted (`metadata.contradicts`, oldest first).
 */
export function applyRule(memory: Memory, olderActive: readonly Memory[]): RuleOutcome {
  const draft = derivedDraftOf(memory);
  const target = targetOf(memory);
  if (draft === undefined || target === undefined) return { superseded: [], memory };
  const superseded: Memory[] = [];
  const contradicted: string[] = [];
  for (const old of olderActive) {
    if (old.id === memory.id || old.kind !== memory.kind || targetOf(old) !== target) continue;
    if (old.status !== "active") continue;
    if (supersedes(draft, supersedeCandidateOf(old.id, old.metadata))) {
      superseded.push({ ...old, status: "superseded", validTo: memory.validFrom });
    } else {
      contradicted.push(old.id);
    }
  }
  if (contradicted.length === 0) return { superseded, memory };
  const metadata: JsonObject = { ...memory.metadata, [contradictsKey]: contradicted };
  const withDispute: DerivedMemory = { ...memory, metadata };
  Object.defineProperty(withDispute, derivedKey, { value: draft, enumerable: false });
  return { superseded, memory: withDispute };
}

/**
 * Applies {@link applyRule} to a set of typed memories in the order their episodes were written
 * (`order` gives each memory's position): the memories as the embedded store would hold them.
 * Memories the server typed itself are returned unchanged.
 */
export function resolveKnowledge(memories: readonly Memory[], order: (memory: Memory) => number) {
  const sorted = [...memories].sort((a, b) => order(a) - order(b));
  const current = new Map<string, Memory>();
  for (const memory of sorted) {
    const older = [...current.values()];
    const outcome = applyRule(memory, older);
    for (const old of outcome.superseded) current.set(old.id, old);
    current.set(memory.id, outcome.memory);
  }
  return memories.map((memory) => current.get(memory.id) ?? memory);
}
