import type { ContextStore, CreateEpisodeInput, Memory } from "../context/context-store.js";
import { listAllMemories } from "../context/memory-query.js";

/**
 * What the edit hooks record about sessions, kept in a companion subject beside the shared one
 * (`<subject>.edits`) so that it never ranks into an agent's task context: each edit (a claim on
 * its module that expires), each refused edit, each session start. Every record is an episode
 * compiled into a memory (`episode_summary`, told apart by `metadata.episodeType`), so the newest
 * of each session and module stays active (compile supersedes a writer's own older memory on the
 * same target) and one indexed search reads them all. Pure: building inputs, reading memories.
 */

/** The companion subject holding a subject's edit activity. */
export function editsSubjectOf(subjectId: string): string {
  return `${subjectId}.edits`;
}

/** Episode types of the edit records. */
export const editEpisodeTypes = {
  claim: "edit_claim",
  denial: "edit_denied",
  session: "edit_session",
} as const;

/** A session's latest edit of a module: it holds the module until `expiresAt`. */
export interface EditClaim {
  readonly module: string;
  readonly agent: string;
  /** What the record says: "<agent> edited <path> (<tool>)". */
  readonly description: string;
  /** When the edit was recorded (ISO). */
  readonly at: string;
  readonly expiresAt: string;
}

/** An edit the hooks refused (or put to the person), the latest per session and module. */
export interface EditDenial {
  readonly module: string;
  readonly agent: string;
  readonly description: string;
  readonly at: string;
}

/** Everything the hooks recorded recently about a subject's sessions. */
export interface EditActivity {
  readonly claims: readonly EditClaim[];
  readonly denials: readonly EditDenial[];
  /** When each session last started (or was told the decisions at its start), by agent. */
  readonly sessionStarts: ReadonlyMap<string, string>;
}

const deniedPrefix = "denied/";
/** The target of every session-start record (one per session stays active). */
export const sessionTarget = "session";

function text(value: unknown): string | undefined {
  return typeof value === "string" && value ? value : undefined;
}

/** The episode recording that `agent` edited `path` of `module`. */
export function claimEpisode(input: {
  subjectId: string;
  agent: string;
  module: string;
  path: string;
  tool: string;
}): CreateEpisodeInput {
  return {
    subjectId: editsSubjectOf(input.subjectId),
    source: input.agent,
    type: editEpisodeTypes.claim,
    payload: {
      content: `${input.agent} edited ${input.path} (${input.tool})`,
      target: input.module,
      module: input.module,
      path: input.path,
      tool: input.tool,
    },
  };
}

/** The episode recording that an edit of `path` by `agent` was refused, and why (one line). */
export function denialEpisode(input: {
  subjectId: string;
  agent: string;
  module: string;
  path: string;
  tool: string;
  decision: "deny" | "ask";
  why: string;
}): CreateEpisodeInput {
  const verb = input.decision === "deny" ? "was denied" : "was put to the person";
  return {
    subjectId: editsSubjectOf(input.subjectId),
    source: input.agent,
    type: editEpisodeTypes.denial,
    payload: {
      content: `${input.agent}'s ${input.tool} of ${input.path} ${verb}: ${input.why}`,
      target: `${deniedPrefix}${input.module}`,
      module: input.module,
      path: input.path,
      tool: input.tool,
      decision: input.decision,
    },
  };
}

/** The episode recording that a session started and was given the shared decisions. */
export function sessionEpisode(input: {
  subjectId: string;
  agent: string;
  source: string;
  decisions: number;
}): CreateEpisodeInput {
  return {
    subjectId: editsSubjectOf(input.subjectId),
    source: input.agent,
    type: editEpisodeTypes.session,
    payload: {
      content: `${input.agent} started (${input.source}) and was given ${input.decisions} decision${input.decisions === 1 ? "" : "s"}`,
      target: sessionTarget,
    },
  };
}

/**
 * Reads the edit records among a companion subject's active memories. A claim expires
 * `claimMinutes` after it was recorded; expired claims are left out when `now` is given.
 */
export function readEditActivity(
  memories: readonly Memory[],
  options: { claimMinutes: number; now?: number },
): EditActivity {
  const claims: EditClaim[] = [];
  const denials: EditDenial[] = [];
  const sessionStarts = new Map<string, string>();
  for (const memory of memories) {
    if (memory.status !== "active") continue;
    const agent = text(memory.metadata.source);
    const target = text(memory.metadata.target);
    if (agent === undefined || target === undefined) continue;
    switch (memory.metadata.episodeType) {
      case editEpisodeTypes.claim: {
        const expires = Date.parse(memory.createdAt) + options.claimMinutes * 60_000;
        if (options.now !== undefined && expires <= options.now) break;
        claims.push({
          module: target,
          agent,
          description: memory.content,
          at: memory.createdAt,
          expiresAt: new Date(expires).toISOString(),
        });
        break;
      }
      case editEpisodeTypes.denial:
        if (target.startsWith(deniedPrefix)) {
          denials.push({
            module: target.slice(deniedPrefix.length),
            agent,
            description: memory.content,
            at: memory.createdAt,
          });
        }
        break;
      case editEpisodeTypes.session: {
        const known = sessionStarts.get(agent);
        if (known === undefined || known < memory.createdAt)
          sessionStarts.set(agent, memory.createdAt);
        break;
      }
      default:
        break;
    }
  }
  return { claims, denials, sessionStarts };
}

/**
 * Reads a subject's edit activity from its companion subject (what `watch` shows), complete.
 * @param options.claimMinutes how long a claim lasts (@default 15, the hooks' default)
 */
export async function readSubjectEdits(
  store: ContextStore,
  subjectId: string,
  options: { now: number; claimMinutes?: number },
): Promise<EditActivity> {
  // Every record, paged to the end: the oldest live claim counts as much as the newest.
  const memories = await listAllMemories(store, editsSubjectOf(subjectId), {
    kind: "episode_summary",
  });
  return readEditActivity(memories, { claimMinutes: options.claimMinutes ?? 15, now: options.now });
}
