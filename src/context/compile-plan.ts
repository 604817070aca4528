import {
  compileEpisode,
  compileProfileFacts,
  type MemoryDraft,
  memoryFromDraft,
  type SupersedeCandidate,
  supersedes,
} from "./compile-memories.js";
import type { JsonObject, Memory } from "./context-store.js";
import type { EpisodeColumns } from "./row-mapping.js";
import { storableDraft } from "./storable-text.js";

/**
 * What one episode does to a subject's memories, for every SQL store (SQLite, Postgres): the
 * stores differ in how they read the active memories and write the result, never in what the
 * result is or in which order it is written. A store reads the episode's draft
 * ({@link draftOfEpisode}), finds the active memories with the draft's kind and target, and runs
 * the {@link planEpisode} steps in order, each step taking the subject's next change sequence.
 */

/** The episode columns compile reads. */
export type CompilableEpisode = Pick<
  EpisodeColumns,
  "id" | "type" | "source" | "payload" | "metadata" | "provenance" | "created_at"
>;

/** An episode's draft and its parsed payload (the profile facts read it again). */
export interface EpisodeDraft {
  readonly draft: MemoryDraft;
  readonly payload: JsonObject;
}

/**
 * The memory draft an episode compiles to, or undefined when it carries no knowledge. Storable
 * (U+0000 dropped) on every store, so both compile one episode to the same memory.
 */
export function draftOfEpisode(episode: CompilableEpisode): EpisodeDraft | undefined {
  const payload = JSON.parse(episode.payload) as JsonObject;
  const draft = storableDraft(
    compileEpisode({
      type: episode.type,
      source: episode.source,
      payload,
      // The episode's authority travels to its memory (compileEpisode copies a declared class).
      metadata: JSON.parse(episode.metadata) as JsonObject,
      provenance: JSON.parse(episode.provenance) as JsonObject,
    }),
  );
  return draft ? { draft, payload } : undefined;
}

/** What the supersede rule needs from an active memory (authority included): one reader, in compile-memories.ts. */
export { supersedeCandidateOf } from "./compile-memories.js";

/** An active memory with the draft's kind and target, with whatever the store needs to update it. */
export interface ActiveMemory {
  readonly candidate: SupersedeCandidate;
}

/** One write of a compile, in the order the store must make them (each takes the next change seq). */
export type CompileStep<Active extends ActiveMemory> =
  | { readonly type: "supersede"; readonly old: Active }
  | { readonly type: "insert"; readonly memory: Memory; readonly target: string | null };

/** What one episode compiles to, and the writes that store it. */
export interface EpisodePlan<Active extends ActiveMemory> {
  /** When the episode's memories start to hold: the episode's own time. */
  readonly validFrom: string;
  /** The episode's own memory (the first insert step). */
  readonly memory: Memory;
  /** Its profile facts (the later insert steps). */
  readonly facts: readonly Memory[];
  /** The active memories it left active (it contradicts them), in their order. */
  readonly stillActive: readonly Active[];
  /** Supersedes first, in the active memories' order, then the memory, then its facts. */
  readonly steps: ReadonlyArray<CompileStep<Active>>;
}

/**
 * The writes one episode's draft causes, given the active memories with its kind and target (in
 * their stored order; none for a draft without a target). Ids come from `generateId` in the
 * order the memories are inserted.
 */
export function planEpisode<Active extends ActiveMemory>(
  episode: CompilableEpisode,
  { draft, payload }: EpisodeDraft,
  active: readonly Active[],
  settings: { subjectId: string; now: string; generateId: () => string },
): EpisodePlan<Active> {
  const validFrom = episode.created_at;
  const steps: Array<CompileStep<Active>> = [];
  const stillActive: Active[] = [];
  for (const old of active) {
    // Only a write made knowing the older memory replaces it; otherwise both stay active and the
    // disagreement is recorded, so nobody silently wins.
    if (supersedes(draft, old.candidate)) steps.push({ type: "supersede", old });
    else stillActive.push(old);
  }
  const memoryOf = (from: MemoryDraft, contradicted: readonly string[]) =>
    memoryFromDraft(from, {
      id: settings.generateId(),
      subjectId: settings.subjectId,
      episodeId: episode.id,
      validFrom,
      now: settings.now,
      contradicted,
    });
  const memory = memoryOf(
    draft,
    stillActive.map((old) => old.candidate.id),
  );
  steps.push({ type: "insert", memory, target: draft.target });
  // A conversation's profile facts, beside its summary (Statewave's kinds): no target, so they
  // supersede nothing. The same text rule as the summary's (U+0000 dropped), on every store.
  const facts: Memory[] = [];
  for (const found of compileProfileFacts({
    type: episode.type,
    source: episode.source,
    payload,
  })) {
    const fact = storableDraft(found);
    if (!fact) continue;
    const factMemory = memoryOf(fact, []);
    facts.push(factMemory);
    steps.push({ type: "insert", memory: factMemory, target: null });
  }
  return { validFrom, memory, facts, stillActive, steps };
}
